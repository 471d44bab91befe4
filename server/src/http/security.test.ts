import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import helmet from "helmet";
import { describe, expect, it } from "vitest";
import type { Middleware, NodeRequest } from "./node.js";
import { apiSecurityHeaders, fixedHeaders } from "./security.js";

/** The headers a real node:http response carries after `step`, with X-Powered-By set first as Express would. */
async function headersAfter(step: Middleware): Promise<Record<string, string>> {
  const server = createServer((req, res) => {
    res.setHeader("X-Powered-By", "Express");
    step(req as NodeRequest, res, () => res.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    const drop = new Set(["date", "connection", "keep-alive", "content-length", "transfer-encoding"]);
    return Object.fromEntries([...response.headers].filter(([name]) => !drop.has(name)));
  } finally {
    server.close();
  }
}

describe("fixedHeaders", () => {
  it("writes exactly what helmet writes, X-Powered-By removed", async () => {
    const policy = { contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"] } }, frameguard: { action: "deny" as const } };
    const fixed = await headersAfter(fixedHeaders(helmet(policy) as Middleware));
    expect(fixed).toEqual(await headersAfter(helmet(policy) as Middleware));
    expect(fixed["content-security-policy"]).toBe("default-src 'none'");
    expect(fixed["x-powered-by"]).toBeUndefined();
  });

  it("the API endpoints' headers: a CSP allowing nothing, no framing, nosniff and HSTS, nothing else", async () => {
    expect(await headersAfter(apiSecurityHeaders())).toEqual({
      "content-security-policy": "default-src 'none';frame-ancestors 'none'",
      "strict-transport-security": "max-age=31536000; includeSubDomains",
      "x-content-type-options": "nosniff",
      "x-frame-options": "DENY",
    });
  });

  it("refuses middleware whose headers could depend on the request or that answers later", () => {
    const readsRequest: Middleware = (req, res, next) => {
      res.setHeader("X-Path", req.url ?? "");
      next();
    };
    expect(() => fixedHeaders(readsRequest)).toThrow("reads the request (url)");
    const later: Middleware = (_req, _res, next) => void setImmediate(next);
    expect(() => fixedHeaders(later)).toThrow("did not call next at once");
    const failing: Middleware = (_req, _res, next) => next(new Error("no policy"));
    expect(() => fixedHeaders(failing)).toThrow("no policy");
  });
});
