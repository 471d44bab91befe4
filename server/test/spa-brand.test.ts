/**
 * The bank's brand on the end-user pages (BRAND_NAME, BRAND_LOGO_URL) against the real
 * server: index.html carries the name as its <title> and name and logo as JSON in
 * <meta name="tollgate-brand"> (http/spa.ts), escaped so that a name with markup or quotes
 * is only text; the pages' CSP allows images from the logo's origin when it is another one,
 * and stays as strict otherwise.
 *
 * The SPA's pages answer 503 when it has not been built (npm run test:unit without npm run
 * build); the rendering itself is also checked on web/index.html, the page Vite builds.
 */
import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Config } from "../src/config.js";
import { brandedIndex } from "../src/http/spa.js";
import { send, type Answer } from "./support/flow.js";
import { startTestServer, type TestServer } from "./support/server.js";

/** Whether the SPA is built (dist/web, as server/src/http/spa.ts finds it). */
const SPA_BUILT = existsSync(new URL("../../dist/web/index.html", import.meta.url));

const TEMPLATE = readFileSync(new URL("../../web/index.html", import.meta.url), "utf8");

/** A name that would break out of the <title> and of a quoted attribute if it were not escaped. */
const HOSTILE_NAME = `Acme "Bank" & Co's </title><script>alert(1)</script>`;
/** A logo on another origin, with characters to escape in an attribute. */
const CDN_LOGO = `https://cdn.acme.example:8443/brand/logo.svg?v=1&style="dark"`;

/** The pages' CSP with `imgSrc` as its img-src; every other directive as strict as without a brand. */
const csp = (imgSrc: string) =>
  `default-src 'self';script-src 'self';style-src 'self';img-src ${imgSrc};connect-src 'self';form-action 'self';frame-ancestors 'none';base-uri 'none';object-src 'none'`;

/** Text of an HTML text node or attribute value, character references read back. */
const unescapeHtml = (s: string) =>
  s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");

/** Checks that `page` is `template` branded with `brand`: the title and the meta say it, and it brings no markup of its own. */
function expectBranded(page: string, template: string, brand: Config["brand"]): void {
  expect(unescapeHtml(page.match(/<title>([^<]*)<\/title>/)?.[1] ?? "")).toBe(brand.name);
  const meta = page.match(/<meta name="tollgate-brand" content="([^"]*)" \/>/)?.[1];
  expect(meta, "the brand's meta").toBeDefined();
  expect(JSON.parse(unescapeHtml(meta!))).toEqual(brand.logoUrl === undefined ? { name: brand.name } : brand);
  // One tag more than the template (the meta); the brand's own "<" are all escaped.
  expect(page.match(/</g)!.length).toBe(template.match(/</g)!.length + 1);
  expect(page).not.toContain("<script>alert");
}

/**
 * Fetches an SPA page: index.html as built, branded with `brand`, or 503 when the SPA has
 * not been built (its headers are the same either way). @returns the answer.
 */
async function expectPage(server: TestServer, path: string, brand: Config["brand"]): Promise<Answer> {
  const answer = await send(new URL(path, server.url), { expect5xx: 503 });
  if (!SPA_BUILT) {
    expect(answer.status, answer.text).toBe(503);
    return answer;
  }
  expect(answer.status).toBe(200);
  expect(answer.headers.get("content-type")).toMatch(/^text\/html/);
  expectBranded(answer.text, readFileSync(new URL("../../dist/web/index.html", import.meta.url), "utf8"), brand);
  return answer;
}

describe("brandedIndex", () => {
  it.each<Config["brand"]>([
    { name: "Tollgate", logoUrl: undefined },
    { name: HOSTILE_NAME, logoUrl: CDN_LOGO },
    { name: "$& $' $` $$", logoUrl: "/brand/logo.svg" },
  ])("renders web/index.html for %j, escaped", (brand) => {
    expectBranded(brandedIndex(TEMPLATE, brand), TEMPLATE, brand);
  });

  it("refuses a page without a <title>", () => {
    expect(() => brandedIndex("<!doctype html><html><head></head></html>", { name: "Acme", logoUrl: undefined })).toThrow(/<title>/);
  });
});

describe("the SPA with BRAND_NAME and a logo on another origin", () => {
  let server: TestServer;
  beforeAll(async () => void (server = await startTestServer({ BRAND_NAME: HOSTILE_NAME, BRAND_LOGO_URL: CDN_LOGO })));
  afterAll(async () => server?.close());

  it.each(["/", "/login", "/consent", "/error", "/account", "/admin"])("%s is index.html with the brand, escaped, and allows images from the logo's origin, nothing else more", async (path) => {
    const answer = await expectPage(server, path, { name: HOSTILE_NAME, logoUrl: CDN_LOGO });
    expect(answer.headers.get("content-security-policy")).toBe(csp("'self' data: https://cdn.acme.example:8443"));
  });
});

describe("the SPA with a logo on its own origin", () => {
  let server: TestServer;
  beforeAll(async () => void (server = await startTestServer({ BRAND_LOGO_URL: "/brand/logo.svg" })));
  afterAll(async () => server?.close());

  it("serves index.html with the default name and the logo's path, and keeps img-src to this origin and data: URLs", async () => {
    const answer = await expectPage(server, "/login", { name: "Tollgate", logoUrl: "/brand/logo.svg" });
    expect(answer.headers.get("content-security-policy")).toBe(csp("'self' data:"));
  });
});
