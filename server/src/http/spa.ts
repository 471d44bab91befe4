/**
 * Serves the React SPA built by Vite (dist/web): hashed assets under /assets (cached for a
 * year) and index.html for the SPA's own pages.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import express, { Router, type Response } from "express";
import { SPA_PAGES } from "../kernel/paths.js";

/** Locates dist/web from this file (works from server/src and dist/server/src). */
function webDist(): string | undefined {
  let dir = path.dirname(new URL(import.meta.url).pathname);
  for (;;) {
    const candidate = path.join(dir, "dist", "web");
    if (existsSync(path.join(candidate, "index.html"))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The SPA's own headers; CSP and framing rules come from securityHeaders() in security.ts. */
const PAGE_HEADERS = { "Cache-Control": "no-store" };

/** Router serving the SPA, or answering 503 on its pages when the SPA has not been built. */
export function spa(): Router {
  const router = Router();
  const dist = webDist();
  const sendPage = (res: Response) => {
    res.set(PAGE_HEADERS);
    if (!dist) {
      res.status(503).type("text/plain").send("The web UI is not built: run npm run build");
      return;
    }
    res.sendFile(path.join(dist, "index.html"));
  };
  if (dist) router.use("/assets", express.static(path.join(dist, "assets"), { immutable: true, maxAge: "365d", fallthrough: false }));
  router.get(["/", ...SPA_PAGES.flatMap((p) => [p, `${p}/*rest`])], (_req, res) => sendPage(res));
  return router;
}
