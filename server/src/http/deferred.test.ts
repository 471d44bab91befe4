import type { Request, RequestHandler, Response } from "express";
import { describe, expect, it } from "vitest";
import { deferredHandler } from "./deferred.js";

/** Calls `handler` as Express would and settles with what reached `next`, or "handled". */
function call(handler: RequestHandler): Promise<unknown> {
  return new Promise((resolve) => {
    const res = { end: () => resolve("handled") } as unknown as Response;
    void handler({} as Request, res, (err?: unknown) => resolve(err));
  });
}

describe("deferredHandler", () => {
  it("loads once, by the first request; requests that come while it loads wait for it", async () => {
    let loads = 0;
    const handler = deferredHandler(async () => {
      loads += 1;
      await new Promise((r) => setTimeout(r, 10));
      return (_req, res) => res.end();
    });
    expect(loads).toBe(0);
    expect(await Promise.all([call(handler), call(handler), call(handler)])).toEqual(["handled", "handled", "handled"]);
    expect(await call(handler)).toBe("handled");
    expect(loads).toBe(1);
  });

  it("passes a failed load to the error handler and tries again on the next request", async () => {
    let loads = 0;
    const handler = deferredHandler(async () => {
      loads += 1;
      if (loads === 1) throw new Error("module not found");
      return (_req, res) => res.end();
    });
    expect(await call(handler)).toEqual(new Error("module not found"));
    expect(await call(handler)).toBe("handled");
    expect(loads).toBe(2);
  });
});
