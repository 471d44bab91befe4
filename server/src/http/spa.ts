/**
 * Serves the React SPA built by Vite (dist/web): hashed assets under /assets (cached for a
 * year) and index.html, with the bank's brand, for the SPA's own pages.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import express, { Router, type Response } from "express";
import type { Config } from "../config.js";
import { SPA_PAGES } from "../kernel/paths.js";
import { escapeHtml } from "../kernel/text.js";

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

/**
 * The SPA's index.html with the brand: its name as the <title>, and its name and logo as
 * JSON in <meta name="tollgate-brand">, which the SPA reads (web/src/lib/brand.ts); both
 * HTML-escaped.
 * @throws Error when the page has no <title> to replace (not Vite's build of web/index.html).
 */
export function brandedIndex(html: string, brand: Config["brand"]): string {
  const title = /<title>[^<]*<\/title>/;
  if (!title.test(html)) throw new Error("the SPA's index.html has no <title>");
  const meta = `<meta name="tollgate-brand" content="${escapeHtml(JSON.stringify(brand))}" />`;
  return html.replace(title, () => `<title>${escapeHtml(brand.name)}</title>\n    ${meta}`);
}

/** The SPA's own headers; CSP and framing rules come from securityHeaders() in security.ts. */
const PAGE_HEADERS = { "Cache-Control": "no-store" };

/**
 * Router serving the SPA, its index.html rendered once here with `brand`, or answering 503
 * on its pages when the SPA has not been built.
 */
export function spa(brand: Config["brand"]): Router {
  const router = Router();
  const dist = webDist();
  const page = dist && brandedIndex(readFileSync(path.join(dist, "index.html"), "utf8"), brand);
  const sendPage = (res: Response) => {
    res.set(PAGE_HEADERS);
    if (!page) {
      res.status(503).type("text/plain").send("The web UI is not built: run npm run build");
      return;
    }
    res.type("html").send(page);
  };
  if (dist) router.use("/assets", express.static(path.join(dist, "assets"), { immutable: true, maxAge: "365d", fallthrough: false }));
  router.get(["/", ...SPA_PAGES.flatMap((p) => [p, `${p}/*rest`])], (_req, res) => sendPage(res));
  return router;
}
