/**
 * HTTP suite for the API gateway (spec "Call a protected API"; decisions.md "Scopes and API
 * products", "Errors"; RFC 6750), on a real server with the demo seed and the demo upstream,
 * plus a test upstream of our own that echoes what it receives.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { hashSecret } from "../src/kernel/secrets.js";
import { basic, clientCredentialsToken, expectNoStore, expectOAuthError, pkcePair, refuse5xx, request, TOKEN_ENDPOINT, tokenRequest, userTokens, type Json, type RequestOptions } from "./support/flow.js";
import { GraphQLClient } from "./support/graphql.js";
import { startTestServer, type TestServer } from "./support/server.js";

/** What the echo upstream saw for one request. */
interface Hit {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let server: TestServer;
let echo: Server;
let echoUrl: string;
/** Every request the echo upstream received, in order. */
const hits: Hit[] = [];

/** A free TCP port on 127.0.0.1 with nothing listening on it any more. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, "127.0.0.1", () => resolve()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** The client credentials token response of `app` at the suite's server; fails the test unless 200. */
async function tokenResponse(app: { consumerKey: string; consumerSecret: string }): Promise<Json> {
  const answer = await tokenRequest(server.url, TOKEN_ENDPOINT, app, { grant_type: "client_credentials" });
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}

/** A client credentials access token from the suite's server. */
const token = (app: { consumerKey: string; consumerSecret: string }, scope?: string) => clientCredentialsToken(server.url, app, scope);

/** Calls the suite's server at `path` (the harness's request: no 5xx unless `init.expect5xx`). */
const gw = (path: string, init: RequestOptions = {}) => request(`${server.url}${path}`, init);

/**
 * Calls the gateway (of `base`, default the suite's server) with node:http, so the path goes
 * out byte for byte (fetch would resolve dot segments) and header names keep their case; an
 * array value is sent as that many header lines. Fails the test on a 5xx, as the harness's
 * request does.
 */
function raw(
  path: string,
  method: string,
  headers: Record<string, string | string[]>,
  base = server.url,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const answer = { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") };
        try {
          refuse5xx(method, `${base}${path}`, answer.status, answer.body);
          resolve(answer);
        } catch (err) {
          reject(err as Error);
        }
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

/** The auth-params of a `WWW-Authenticate: Bearer` challenge (RFC 6750 §3). */
function bearerChallenge(header: string | null): Record<string, string> {
  expect(header).not.toBeNull();
  const m = /^Bearer (.*)$/.exec(header!);
  expect(m, header!).not.toBeNull();
  const params: Record<string, string> = {};
  for (const p of m![1]!.matchAll(/([a-z_]+)="([^"]*)"/g)) params[p[1]!] = p[2]!;
  return params;
}

let appToken: string;
/** The demo PSU's token (SCA, scope aisp) of DEMO.app: account data needs the PSU (gateway/access.ts). */
let psuToken: string;

/** The cookies the echo upstream sets on /cookie. */
const UPSTREAM_COOKIES = ["upstream-session=s3cr3t; Path=/; HttpOnly", "upstream-theme=dark; Path=/"];

/** A caller's forwarding fields, every one spoofed: names in odd cases, CGI spellings, repeated lines. */
const SPOOFED_FORWARDING: Record<string, string | string[]> = {
  "X-Forwarded-For": ["203.0.113.7", "203.0.113.8, 203.0.113.9"],
  "x-forwarded-host": "evil.example",
  "X-FORWARDED-PROTO": "https",
  "X-Forwarded-Port": "443",
  Forwarded: ['for=203.0.113.7;host=evil.example;proto=https', "for=203.0.113.8"],
  "X-Real-IP": "203.0.113.7",
  X_Forwarded_For: "203.0.113.10",
  x_real_ip: "203.0.113.11",
  "X_Forwarded_Host": "evil.example",
  "X-Forwarded-Prefix": "/evil",
  "X-Forwarded-Ssl": "on",
  "X-Original-URL": "/admin",
  "X-Rewrite-URL": "/admin",
  "True-Client-IP": "203.0.113.12",
  "X-Client-IP": "203.0.113.13",
  "Client-IP": "203.0.113.14",
  "CF-Connecting-IP": "203.0.113.15",
  "X-Cluster-Client-IP": "203.0.113.16",
};

/** Header names the upstream may see of all forwarding fields: the gateway's own six. */
const GATEWAY_FORWARDING = ["forwarded", "x-forwarded-for", "x-forwarded-host", "x-forwarded-port", "x-forwarded-proto", "x-real-ip"];

/** Asserts that nothing the caller sent in SPOOFED_FORWARDING reached the upstream, under any name. */
function expectNoSpoofReached(received: IncomingHttpHeaders): void {
  const text = JSON.stringify(received);
  expect(text).not.toContain("203.0.113.");
  expect(text).not.toContain("evil");
  expect(text).not.toContain("/admin");
  for (const name of Object.keys(received)) {
    if (/forward|real|client-ip|original|rewrite/.test(name)) expect(GATEWAY_FORWARDING, name).toContain(name);
    expect(name).not.toContain("_");
  }
}

beforeAll(async () => {
  server = await startTestServer();

  echo = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const hit: Hit = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      hits.push(hit);
      // On /hop, a hop-by-hop field named by Connection, which the gateway must not pass on (RFC 9110 §7.6.1).
      if (req.url?.endsWith("/hop")) res.setHeader("Connection", "keep-alive, X-Upstream-Hop").setHeader("X-Upstream-Hop", "1");
      // On /cookie, two cookies, which reach the caller only through an API that passes cookies.
      if (req.url?.endsWith("/cookie")) res.setHeader("Set-Cookie", UPSTREAM_COOKIES);
      // On /sniff, the upstream's own X-Content-Type-Options, which the gateway answers as nosniff.
      if (req.url?.endsWith("/sniff")) res.setHeader("X-Content-Type-Options", "sniff");
      res.writeHead(200, { "Content-Type": "application/json", "X-Echo": "yes" });
      res.end(JSON.stringify(hit));
    });
  });
  await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", () => resolve()));
  echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;

  const aisp = await server.prisma.apiProduct.findUniqueOrThrow({ where: { name: "PSD2-AISP-v1" } });
  await server.prisma.api.create({
    data: { name: "echo", upstreamUrl: echoUrl, requiredScopes: "aisp", products: { create: [{ apiProductId: aisp.id }] } },
  });
  await server.prisma.api.create({
    data: { name: "down", upstreamUrl: `http://127.0.0.1:${await closedPort()}`, requiredScopes: "", products: { create: [{ apiProductId: aisp.id }] } },
  });
  // The same upstream under a base path.
  await server.prisma.api.create({
    data: { name: "echobase", upstreamUrl: `${echoUrl}/base/v1`, requiredScopes: "aisp", products: { create: [{ apiProductId: aisp.id }] } },
  });
  // An API no product grants: every token is refused with insufficient_scope.
  await server.prisma.api.create({ data: { name: "orphan", upstreamUrl: echoUrl, requiredScopes: "" } });

  appToken = await token(DEMO.app);
  psuToken = (await userTokens(server.url, { scope: "aisp" })).tokens.access_token;
});

afterAll(async () => {
  await server?.close();
  if (echo) {
    await new Promise<void>((resolve) => {
      echo.close(() => resolve());
      echo.closeAllConnections();
    });
  }
});

describe("demo accounts API", () => {
  it("answers GET /accounts/ with the demo upstream's JSON and the caller identity", async () => {
    const res = await gw("/accounts/", { headers: { Authorization: `Bearer ${psuToken}`, Accept: "application/json" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json\b/);
    const body = (await res.json()) as Json;

    // The same data the demo upstream serves directly.
    const direct = (await (await request(`${server.demoUpstreamUrl}/`)).json()) as Json;
    expect(body.accounts).toEqual(direct.accounts);
    expect(body.accounts.map((a: Json) => a.resourceId)).toEqual(["acc-001", "acc-002"]);

    expect(body.caller.clientId).toBe(DEMO.app.consumerKey);
    expect(body.caller.appName).toBe(DEMO.app.name);
    expect(body.caller.scopes).toBe("aisp");
    expect(body.caller.userId).toBe((await server.db.users.byUsername(DEMO.user.username))!.id);
  });

  it("answers GET /accounts/acc-001/balances with that account's balances", async () => {
    const res = await gw("/accounts/acc-001/balances", { headers: { Authorization: `Bearer ${psuToken}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    const direct = (await (await request(`${server.demoUpstreamUrl}/acc-001/balances`)).json()) as Json;
    expect(body.account).toEqual(direct.account);
    expect(body.balances).toEqual(direct.balances);
    expect(body.account.resourceId).toBe("acc-001");
    expect(body.balances[0].balanceAmount).toEqual({ currency: "EUR", amount: "1523.42" });
  });

  it("serves /accounts without a trailing slash like /accounts/", async () => {
    const res = await gw("/accounts", { headers: { Authorization: `Bearer ${psuToken}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).accounts).toHaveLength(2);
  });

  it("passes the upstream's own status through (404 for an unknown account)", async () => {
    const res = await gw("/accounts/acc-999", { headers: { Authorization: `Bearer ${psuToken}` } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as Json).error).toBe("not_found");
  });

  it("accepts the token of the rfc6749 profile app and a lowercase bearer scheme", async () => {
    const strict = (await userTokens(server.url, { client: DEMO.strictApp, scope: "aisp", pkce: pkcePair() })).tokens.access_token;
    const res = await gw("/accounts/", { headers: { Authorization: `Bearer ${strict}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).caller.clientId).toBe(DEMO.strictApp.consumerKey);
    const lower = await gw("/accounts/", { headers: { Authorization: `bearer ${psuToken}` } });
    expect(lower.status).toBe(200);
  });

  it("accepts the BearerToken scheme (the apigee profile's token_type) in any case, like Bearer, also at the admin API", async () => {
    const issued = await tokenResponse(DEMO.app);
    expect(issued.token_type).toBe("BearerToken");
    // A client credentials token: on an API without a consent check (account data needs the PSU).
    for (const scheme of [issued.token_type as string, "bearertoken", "BEARERTOKEN", "bEARERtOKEN"]) {
      const res = await gw("/echo/scheme", { headers: { Authorization: `${scheme} ${issued.access_token}` } });
      expect(res.status, scheme).toBe(200);
      expect(((await res.json()) as Json).headers["x-client-id"]).toBe(DEMO.app.consumerKey);
    }
    // The scheme says nothing of the token: a bad one is invalid_token, another app's product insufficient_scope.
    await expectOAuthError(await gw("/accounts/", { headers: { Authorization: "BearerToken not-a-real-token" } }), 401, "invalid_token");
    await expectOAuthError(await gw("/accounts/", { headers: { Authorization: `BearerToken ${await token(DEMO.paymentsApp)}` } }), 403, "insufficient_scope");
    // Look-alike schemes stay refused, with the bare challenges of a missing token.
    for (const scheme of ["BearerTokens", "Bearer-Token", "Bearer_Token", "Token"]) {
      const res = await gw("/accounts/", { headers: { Authorization: `${scheme} ${issued.access_token}` } });
      await expectOAuthError(res, 401, "invalid_request");
      expect(res.headers.get("www-authenticate"), scheme).toBe('Bearer realm="tollgate", DPoP realm="tollgate", algs="PS256 ES256 EdDSA"');
    }
    const admin = await tokenResponse(DEMO.adminApp);
    const graphql = new GraphQLClient(server.url, { kind: "authorization", header: `${admin.token_type} ${admin.access_token}` });
    expect((await graphql.data<Json>("{ apis { name } }")).apis.map((a: Json) => a.name)).toContain("accounts");
  });

  it("lets one token make many calls until it expires", async () => {
    for (let i = 0; i < 5; i++) {
      expect((await gw("/accounts/acc-002", { headers: { Authorization: `Bearer ${psuToken}` } })).status).toBe(200);
    }
  });
});

describe("forwarding to the upstream", () => {
  it("forwards the path after the API name and the query string", async () => {
    const res = await gw("/echo/a/b?x=1", { headers: { Authorization: `Bearer ${appToken}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-echo")).toBe("yes");
    const hit = (await res.json()) as Hit;
    expect(hit.method).toBe("GET");
    expect(hit.url).toBe("/a/b?x=1");
    expect(hits.at(-1)!.url).toBe("/a/b?x=1");
  });

  it("forwards the API root and a query with repeated and encoded parameters unchanged", async () => {
    const root = (await (await gw("/echo", { headers: { Authorization: `Bearer ${appToken}` } })).json()) as Hit;
    expect(root.url).toBe("/");
    const slash = (await (await gw("/echo/", { headers: { Authorization: `Bearer ${appToken}` } })).json()) as Hit;
    expect(slash.url).toBe("/");
    const q = (await (await gw("/echo/items/%C3%A9t%C3%A9?a=1&a=2&b=x%20y", { headers: { Authorization: `Bearer ${appToken}` } })).json()) as Hit;
    expect(q.url).toBe("/items/%C3%A9t%C3%A9?a=1&a=2&b=x%20y");
  });

  it("forwards runs of slashes as one, so the upstream never sees a path starting // (a network-path reference)", async () => {
    const hit = (await (await gw("/echo//evil.example//a?x=//y", { headers: { Authorization: `Bearer ${appToken}` } })).json()) as Hit;
    expect(hit.url).toBe("/evil.example/a?x=//y");
  });

  it.each(["POST", "PUT", "PATCH", "DELETE"])("forwards %s with its body and content type", async (method) => {
    const payload = JSON.stringify({ method, amount: "12.50", note: "héllo" });
    const res = await gw(`/echo/payments/p-1?m=${method}`, {
      method,
      headers: { Authorization: `Bearer ${appToken}`, "Content-Type": "application/json" },
      body: payload,
    });
    expect(res.status).toBe(200);
    const hit = (await res.json()) as Hit;
    expect(hit.method).toBe(method);
    expect(hit.url).toBe(`/payments/p-1?m=${method}`);
    expect(hit.body).toBe(payload);
    expect(hit.headers["content-type"]).toBe("application/json");
    expect(hit.headers["content-length"]).toBe(String(Buffer.byteLength(payload)));
  });

  it("forwards a form body untouched (the gateway does not parse bodies)", async () => {
    const payload = "grant_type=client_credentials&a=1&a=2";
    const hit = (await (
      await gw("/echo/form", {
        method: "POST",
        headers: { Authorization: `Bearer ${appToken}`, "Content-Type": "application/x-www-form-urlencoded" },
        body: payload,
      })
    ).json()) as Hit;
    expect(hit.body).toBe(payload);
  });

  it("prefixes the upstream URL's own path", async () => {
    const hit = (await (await gw("/echobase/a/b?x=1", { headers: { Authorization: `Bearer ${appToken}` } })).json()) as Hit;
    expect(hit.url).toBe("/base/v1/a/b?x=1");
  });

  it("streams a large body (1 MiB) through intact", async () => {
    const payload = Buffer.alloc(1024 * 1024, "0123456789abcdef").toString("utf8");
    const res = await gw("/echo/upload", {
      method: "POST",
      headers: { Authorization: `Bearer ${appToken}`, "Content-Type": "application/octet-stream" },
      body: payload,
    });
    expect(res.status).toBe(200);
    const hit = (await res.json()) as Hit;
    expect(hit.body.length).toBe(payload.length);
    expect(hit.body === payload).toBe(true);
  });

  it("never forwards Authorization or Cookie", async () => {
    const res = await gw("/echo/secret", {
      method: "POST",
      headers: { Authorization: `Bearer ${appToken}`, Cookie: "session=abc; tg=1", "Content-Type": "text/plain" },
      body: "x",
    });
    expect(res.status).toBe(200);
    const hit = (await res.json()) as Hit;
    expect(hit.headers.authorization).toBeUndefined();
    expect(hit.headers.cookie).toBeUndefined();
    expect(JSON.stringify(hit.headers)).not.toContain(appToken);
    expect(JSON.stringify(hit.headers)).not.toContain("session=abc");
  });

  it("drops hop-by-hop fields both ways, also those Connection names, and adds X-Forwarded-For (RFC 9110 §7.6.1)", async () => {
    const res = await raw("/echo/hop", "GET", {
      Authorization: `Bearer ${appToken}`,
      Connection: "keep-alive, X-Caller-Hop",
      "X-Caller-Hop": "1",
      "Keep-Alive": "timeout=5",
      "Proxy-Authorization": "Basic c2VjcmV0OnNlY3JldA==",
      TE: "trailers",
      "X-Kept": "yes",
    });
    expect(res.status).toBe(200);
    const hit = JSON.parse(res.body) as Hit;
    for (const name of ["x-caller-hop", "keep-alive", "proxy-authorization", "te"]) expect(hit.headers[name], name).toBeUndefined();
    expect(hit.headers["x-kept"]).toBe("yes");
    expect(hit.headers.host).toBe(new URL(echoUrl).host);
    expect(hit.headers["x-forwarded-for"]).toBe("127.0.0.1");
    expect(hit.headers["x-forwarded-host"]).toBe(new URL(server.url).host);
    expect(res.headers["x-echo"]).toBe("yes");
    expect(res.headers["x-upstream-hop"]).toBeUndefined();
  });

  it("replaces every forwarding field the caller sent with its own when no proxy is trusted (RFC 7239)", async () => {
    const host = new URL(server.url).host;
    for (const path of ["/echo/fwd", "/echobase/fwd?x=1"]) {
      const res = await raw(path, "POST", { Authorization: `Bearer ${appToken}`, "Content-Type": "text/plain", ...SPOOFED_FORWARDING });
      expect(res.status, res.body).toBe(200);
      const received = (JSON.parse(res.body) as Hit).headers;
      expect(received.forwarded).toBe(`for=127.0.0.1;host="${host}";proto=http`);
      expect(received["x-forwarded-for"]).toBe("127.0.0.1");
      expect(received["x-real-ip"]).toBe("127.0.0.1");
      expect(received["x-forwarded-proto"]).toBe("http");
      expect(received["x-forwarded-host"]).toBe(host);
      expect(received["x-forwarded-port"]).toBe(new URL(server.url).port);
      expectNoSpoofReached(received);
    }
  });

  it("drops caller-sent identity fields spelt with underscores, which CGI-style upstreams read as the real ones", async () => {
    const res = await raw("/echo/cgi", "GET", { Authorization: `Bearer ${appToken}`, X_Client_Id: "evil-client", X_User_Id: "user-123", x_scopes: "superuser" });
    expect(res.status).toBe(200);
    const hit = JSON.parse(res.body) as Hit;
    expect(hit.headers["x-client-id"]).toBe(DEMO.app.consumerKey);
    expect(Object.keys(hit.headers).filter((name) => name.includes("_"))).toEqual([]);
    expect(res.body).not.toContain("evil");
    expect(res.body).not.toContain("superuser");
  });

  it("sets X-Client-Id, X-App-Name and X-Scopes from the token and replaces caller-sent copies", async () => {
    const scoped = await token(DEMO.app, "aisp piisp");
    const res = await gw("/echo/who", {
      headers: {
        Authorization: `Bearer ${scoped}`,
        "X-Client-Id": "evil-client",
        "X-Scopes": "admin superuser",
        "X-User-Id": "user-123",
        "X-App-Name": "Evil App",
      },
    });
    expect(res.status).toBe(200);
    const hit = (await res.json()) as Hit;
    expect(hit.headers["x-client-id"]).toBe(DEMO.app.consumerKey);
    expect(hit.headers["x-app-name"]).toBe(DEMO.app.name);
    expect(String(hit.headers["x-scopes"]).split(" ").sort()).toEqual(["aisp", "piisp"]);
    // A client credentials token has no user: the caller's X-User-Id is dropped, not passed on.
    expect(hit.headers["x-user-id"]).toBeUndefined();
    expect(JSON.stringify(hit.headers)).not.toContain("evil");
    expect(JSON.stringify(hit.headers)).not.toContain("superuser");
  });

  it("sends a non-ASCII app name in X-App-Name as percent-encoded UTF-8", async () => {
    const developer = await server.prisma.developer.findUniqueOrThrow({ where: { email: DEMO.developerEmail } });
    const aisp = await server.prisma.apiProduct.findUniqueOrThrow({ where: { name: "PSD2-AISP-v1" } });
    // "é" is in the Basic Multilingual Plane; "💶" (U+1F4B6) is a surrogate pair in JavaScript strings.
    for (const [i, name] of ["Café Budget", "Café 💶 Budget"].entries()) {
      const consumerKey = `gw-unicode-key-${i}`;
      await server.prisma.app.create({
        data: {
          name,
          developerId: developer.id,
          credentials: {
            create: [{ consumerKey, consumerSecretHash: hashSecret("gw-unicode-secret"), products: { create: [{ apiProductId: aisp.id }] } }],
          },
        },
      });
      const t = await token({ consumerKey, consumerSecret: "gw-unicode-secret" });
      const res = await gw("/echo/unicode", { headers: { Authorization: `Bearer ${t}` } });
      const text = await res.text();
      expect(res.status, `${name}: ${text}`).toBe(200);
      const header = String((JSON.parse(text) as Hit).headers["x-app-name"]);
      expect(header).toMatch(/^[\x20-\x7e]+$/);
      expect(decodeURIComponent(header)).toBe(name);
    }
  });

  it("percent-encodes a literal % in X-App-Name too, so the header decodes back to the name (RFC 3986 §2.4)", async () => {
    const developer = await server.prisma.developer.findUniqueOrThrow({ where: { email: DEMO.developerEmail } });
    const aisp = await server.prisma.apiProduct.findUniqueOrThrow({ where: { name: "PSD2-AISP-v1" } });
    // Without escaping "%", "Caf%C3%A9" would reach the upstream exactly as "Café" does.
    const name = "100% Caf%C3%A9";
    await server.prisma.app.create({
      data: {
        name,
        developerId: developer.id,
        credentials: {
          create: [{ consumerKey: "gw-percent-key", consumerSecretHash: hashSecret("gw-percent-secret"), products: { create: [{ apiProductId: aisp.id }] } }],
        },
      },
    });
    const t = await token({ consumerKey: "gw-percent-key", consumerSecret: "gw-percent-secret" });
    const res = await gw("/echo/percent", { headers: { Authorization: `Bearer ${t}` } });
    expect(res.status).toBe(200);
    const header = String(((await res.json()) as Hit).headers["x-app-name"]);
    expect(() => decodeURIComponent(header)).not.toThrow();
    expect(decodeURIComponent(header)).toBe(name);
  });

  it("sets the identity headers on every forwarded request", async () => {
    const hit = (await (await gw("/echo/plain", { headers: { Authorization: `Bearer ${appToken}` } })).json()) as Hit;
    expect(hit.headers["x-client-id"]).toBe(DEMO.app.consumerKey);
    expect(hit.headers["x-app-name"]).toBe(DEMO.app.name);
    expect(String(hit.headers["x-scopes"]).split(" ").sort()).toEqual(["aisp", "extended_transaction_history", "piisp", "pisp"]);
  });
});

describe("the upstream's answer", () => {
  it("never passes the upstream's Set-Cookie for an API that does not pass cookies (the default)", async () => {
    // The upstream does set them.
    const direct = await request(`${echoUrl}/cookie`);
    expect(direct.headers.getSetCookie()).toEqual(UPSTREAM_COOKIES);
    for (const [path, method] of [["/echo/cookie", "GET"], ["/echobase/x/cookie", "POST"]] as const) {
      const res = await raw(path, method, { Authorization: `Bearer ${appToken}` });
      expect(res.status, res.body).toBe(200);
      expect(res.headers["set-cookie"]).toBeUndefined();
      expect(res.headers["x-echo"]).toBe("yes");
    }
    expect((await server.prisma.api.findUniqueOrThrow({ where: { name: "echo" } })).passCookies).toBe(false);
  });

  it("passes Set-Cookie only while the API's passCookies, set and audited through the admin API, is on", async () => {
    const adminToken = await token(DEMO.adminApp);
    const admin = new GraphQLClient(server.url, { kind: "authorization", header: `Bearer ${adminToken}` });
    const fields = "id name passCookies";
    const { createApi: plain } = await admin.data<Json>(`mutation($input: CreateApiInput!) { createApi(input: $input) { ${fields} } }`, {
      input: { name: "echoplain", upstreamUrl: echoUrl, requiredScopes: ["aisp"] },
    });
    expect(plain.passCookies).toBe(false);
    const { createApi: api } = await admin.data<Json>(`mutation($input: CreateApiInput!) { createApi(input: $input) { ${fields} } }`, {
      input: { name: "echocookies", upstreamUrl: echoUrl, requiredScopes: ["aisp"], passCookies: true },
    });
    expect(api.passCookies).toBe(true);
    const aisp = await server.prisma.apiProduct.findUniqueOrThrow({ where: { name: "PSD2-AISP-v1" } });
    await server.prisma.apiProductApi.createMany({ data: [plain.id, api.id].map((apiId: string) => ({ apiProductId: aisp.id, apiId })) });

    const call = (name: string) => raw(`/${name}/cookie`, "GET", { Authorization: `Bearer ${appToken}` });
    expect((await call("echoplain")).headers["set-cookie"]).toBeUndefined();
    const passed = await call("echocookies");
    expect(passed.status, passed.body).toBe(200);
    expect(passed.headers["set-cookie"]).toEqual(UPSTREAM_COOKIES);

    const { updateApi } = await admin.data<Json>(`mutation($id: ID!) { updateApi(id: $id, input: { passCookies: false }) { ${fields} } }`, { id: api.id });
    expect(updateApi.passCookies).toBe(false);
    // The next call already sees the change (the catalog cache is emptied by the write).
    expect((await call("echocookies")).headers["set-cookie"]).toBeUndefined();
    // An update that leaves passCookies out keeps it.
    await admin.data('mutation($id: ID!) { updateApi(id: $id, input: { passCookies: true }) { id } }', { id: api.id });
    await admin.data('mutation($id: ID!) { updateApi(id: $id, input: { requiredScopes: ["aisp"] }) { id } }', { id: api.id });
    expect((await call("echocookies")).headers["set-cookie"]).toEqual(UPSTREAM_COOKIES);
    expect((await admin.data<Json>("{ apis { name passCookies } }")).apis.filter((a: Json) => a.passCookies).map((a: Json) => a.name)).toEqual(["echocookies"]);

    const events = await server.prisma.auditEvent.findMany({ where: { type: { in: ["admin.createApi", "admin.updateApi"] } } });
    const details = events.map((e) => ({ type: e.type, actor: e.actor, subject: e.subject, input: JSON.parse(e.details).args.input }));
    expect(details).toHaveLength(5);
    expect(details).toEqual(expect.arrayContaining([
      { type: "admin.createApi", actor: `client:${DEMO.adminApp.consumerKey}`, subject: "", input: { name: "echoplain", upstreamUrl: echoUrl, requiredScopes: ["aisp"] } },
      { type: "admin.createApi", actor: `client:${DEMO.adminApp.consumerKey}`, subject: "", input: { name: "echocookies", upstreamUrl: echoUrl, requiredScopes: ["aisp"], passCookies: true } },
      { type: "admin.updateApi", actor: `client:${DEMO.adminApp.consumerKey}`, subject: api.id, input: { passCookies: false } },
      { type: "admin.updateApi", actor: `client:${DEMO.adminApp.consumerKey}`, subject: api.id, input: { passCookies: true } },
      { type: "admin.updateApi", actor: `client:${DEMO.adminApp.consumerKey}`, subject: api.id, input: { requiredScopes: ["aisp"] } },
    ]));
  });

  it("carries X-Content-Type-Options: nosniff, in place of the upstream's own value, on 2xx and 4xx answers of the upstream", async () => {
    for (const path of ["/echo/sniff", "/echo/plain", "/accounts/acc-001", "/accounts/acc-999"]) {
      const res = await gw(path, { headers: { Authorization: `Bearer ${path.startsWith("/accounts/") ? psuToken : appToken}` } });
      expect(res.status, path).toBe(path.endsWith("999") ? 404 : 200);
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
    }
  });
});

describe("access errors (RFC 6750 §3)", () => {
  it("answers a call without Authorization with 401, a Bearer challenge without error attribute and the DPoP one with its algs (RFC 9449 §7.1)", async () => {
    const before = hits.length;
    for (const path of ["/echo/a", "/accounts/"]) {
      const res = await gw(path);
      await expectOAuthError(res, 401, "invalid_request");
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="tollgate", DPoP realm="tollgate", algs="PS256 ES256 EdDSA"');
    }
    expect(hits.length).toBe(before);
  });

  it("answers Authorization: Basic with 401 and never forwards the request", async () => {
    const before = hits.length;
    for (const app of [DEMO.app, { consumerKey: "someone", consumerSecret: "else" }]) {
      const res = await gw("/echo/a", { method: "POST", headers: { Authorization: basic(app.consumerKey, app.consumerSecret) }, body: "x" });
      await expectOAuthError(res, 401, "invalid_request");
      const challenge = res.headers.get("www-authenticate");
      expect(challenge).toMatch(/^Bearer realm="tollgate"/);
      expect(challenge).not.toContain(Buffer.from(`${app.consumerKey}:${app.consumerSecret}`).toString("base64"));
    }
    expect(hits.length).toBe(before);
  });

  it("never takes an access token from the query string or a form body (RFC 9700 §4.3.2)", async () => {
    const valid = await token(DEMO.app);
    const before = hits.length;
    for (const res of [
      await gw(`/echo/a?access_token=${valid}`),
      await gw("/echo/a", { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: `access_token=${valid}` }),
    ]) {
      await expectOAuthError(res, 401, "invalid_request");
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="tollgate", DPoP realm="tollgate", algs="PS256 ES256 EdDSA"');
    }
    expect(hits.length).toBe(before);
  });

  it("answers a made-up token with 401 invalid_token", async () => {
    const before = hits.length;
    for (const value of ["x".repeat(43), "not-a-real-token", "a b c", "!!!"]) {
      const res = await gw("/echo/a", { headers: { Authorization: `Bearer ${value}` } });
      await expectOAuthError(res, 401, "invalid_token");
      const c = bearerChallenge(res.headers.get("www-authenticate"));
      expect(c.realm).toBe("tollgate");
      expect(c.error).toBe("invalid_token");
    }
    expect(hits.length).toBe(before);
  });

  it("answers an expired token with 401 invalid_token", async () => {
    const t = await token(DEMO.app);
    expect((await gw("/echo/exp", { headers: { Authorization: `Bearer ${t}` } })).status).toBe(200);
    await server.prisma.accessToken.updateMany({ where: { tokenHash: hashSecret(t) }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const before = hits.length;
    const res = await gw("/echo/exp", { headers: { Authorization: `Bearer ${t}` } });
    await expectOAuthError(res, 401, "invalid_token");
    expect(bearerChallenge(res.headers.get("www-authenticate")).error).toBe("invalid_token");
    expect(hits.length).toBe(before);
  });

  it("answers a revoked token with 401 invalid_token", async () => {
    const t = await token(DEMO.app);
    expect((await gw("/echo/revoked", { headers: { Authorization: `Bearer ${t}` } })).status).toBe(200);
    await server.prisma.accessToken.updateMany({ where: { tokenHash: hashSecret(t) }, data: { status: "revoked", revokedAt: new Date() } });
    const res = await gw("/echo/revoked", { headers: { Authorization: `Bearer ${t}` } });
    await expectOAuthError(res, 401, "invalid_token");
    expect(bearerChallenge(res.headers.get("www-authenticate")).error).toBe("invalid_token");
  });

  it("answers a token whose product does not grant the API with 403 insufficient_scope (DEMO.paymentsApp)", async () => {
    const t = await token(DEMO.paymentsApp);
    const before = hits.length;
    for (const path of ["/accounts/", "/echo/a"]) {
      const res = await gw(path, { headers: { Authorization: `Bearer ${t}` } });
      await expectOAuthError(res, 403, "insufficient_scope");
      const c = bearerChallenge(res.headers.get("www-authenticate"));
      expect(c.realm).toBe("tollgate");
      expect(c.error).toBe("insufficient_scope");
    }
    expect(hits.length).toBe(before);
  });

  it("answers a token without the API's required scope with 403 insufficient_scope", async () => {
    const before = hits.length;
    for (const scope of ["pisp", "extended_transaction_history"]) {
      const t = await token(DEMO.app, scope);
      for (const path of ["/accounts/", "/echo/a"]) {
        const res = await gw(path, { headers: { Authorization: `Bearer ${t}` } });
        await expectOAuthError(res, 403, "insufficient_scope");
        const c = bearerChallenge(res.headers.get("www-authenticate"));
        expect(c.error).toBe("insufficient_scope");
        expect(c.scope).toBe("aisp");
      }
    }
    expect(hits.length).toBe(before);
    // The same app with aisp gets through (where no PSU is needed: account data needs the PSU).
    expect((await gw("/echo/a", { headers: { Authorization: `Bearer ${await token(DEMO.app, "aisp")}` } })).status).toBe(200);
  });

  it("answers an API that no product grants with 403 insufficient_scope", async () => {
    const before = hits.length;
    const res = await gw("/orphan/a", { headers: { Authorization: `Bearer ${appToken}` } });
    await expectOAuthError(res, 403, "insufficient_scope");
    expect(hits.length).toBe(before);
  });

  it("stops forwarding once the token's product is revoked on its credential", async () => {
    const developer = await server.prisma.developer.findUniqueOrThrow({ where: { email: DEMO.developerEmail } });
    const aisp = await server.prisma.apiProduct.findUniqueOrThrow({ where: { name: "PSD2-AISP-v1" } });
    const app = await server.prisma.app.create({
      data: {
        name: "Gateway product revocation",
        developerId: developer.id,
        credentials: {
          create: [{ consumerKey: "gw-product-key", consumerSecretHash: hashSecret("gw-product-secret"), products: { create: [{ apiProductId: aisp.id }] } }],
        },
      },
      include: { credentials: true },
    });
    const t = await token({ consumerKey: "gw-product-key", consumerSecret: "gw-product-secret" });
    expect((await gw("/echo/p", { headers: { Authorization: `Bearer ${t}` } })).status).toBe(200);
    await server.prisma.credentialProduct.update({
      where: { credentialId_apiProductId: { credentialId: app.credentials[0]!.id, apiProductId: aisp.id } },
      data: { status: "revoked" },
    });
    await expectOAuthError(await gw("/echo/p", { headers: { Authorization: `Bearer ${t}` } }), 403, "insufficient_scope");
  });
});

describe("routing errors", () => {
  it("answers an unknown API with 404 JSON", async () => {
    const before = hits.length;
    await expectOAuthError(await gw("/no-such-api/x", { headers: { Authorization: `Bearer ${appToken}` } }), 404, "not_found");
    await expectOAuthError(await gw("/no-such-api"), 404, "not_found");
    expect(hits.length).toBe(before);
  });

  it.each([
    ...["/echo/../x", "/echo/%2e%2e/x", "/echo/%2E%2E/x", "/echo/a/./b", "/echo/%2e/b", "/echo/a%2fb", "/echo/.%2e/x", "/echo/%zz"],
    // Dot segments with ;parameters, read as .. or . by Java upstreams.
    ...["/echo/..;/x", "/echo/..;x/y", "/echo/.;/x", "/echo/%2e%2e;x/y", "/echo/.%2E;/x", "/echo/%2E;jsessionid=1/x", "/echo/..%3b/x", "/..;/echo/x", "/echo/a/..;"],
  ])(
    "answers the dot segment (also with ;parameters), encoded slash or bad escape path %s with 400",
    async (path) => {
      const before = hits.length;
      const res = await raw(path, "GET", { Authorization: `Bearer ${appToken}` });
      expect(res.status, res.body).toBe(400);
      expect(res.headers["content-type"]).toMatch(/^application\/json\b/);
      expect((JSON.parse(res.body) as Json).error).toBe("invalid_request");
      expect(hits.length).toBe(before);
    },
  );

  it.each(["HEAD", "OPTIONS"])("answers %s on an API with 405 and an Allow header", async (method) => {
    const before = hits.length;
    const res = await gw("/echo/a", { method, headers: { Authorization: `Bearer ${appToken}` } });
    expect(res.status).toBe(405);
    const allow = (res.headers.get("allow") ?? "").split(/, */);
    expect(allow.sort()).toEqual(["DELETE", "GET", "PATCH", "POST", "PUT"]);
    expect(hits.length).toBe(before);
  });

  it("answers 502 JSON when the upstream is down", async () => {
    const res = await gw("/down/anything", { headers: { Authorization: `Bearer ${appToken}` }, expect5xx: 502 });
    expect(res.status).toBe(502);
    expect(res.headers.get("content-type")).toMatch(/^application\/json\b/);
    expectNoStore(res);
    expect(await res.json()).toEqual({ error: "bad_gateway", error_description: "the upstream API did not answer" });
    // Still checked first: no token, no upstream attempt.
    await expectOAuthError(await gw("/down/anything"), 401, "invalid_request");
  });
});

describe("behind trusted proxies (TRUST_PROXY_HOPS=2)", () => {
  let proxied: TestServer;
  let proxiedToken: string;

  beforeAll(async () => {
    proxied = await startTestServer({ TRUST_PROXY_HOPS: "2" });
    const aisp = await proxied.prisma.apiProduct.findUniqueOrThrow({ where: { name: "PSD2-AISP-v1" } });
    await proxied.prisma.api.create({ data: { name: "echo", upstreamUrl: echoUrl, requiredScopes: "aisp", products: { create: [{ apiProductId: aisp.id }] } } });
    proxiedToken = await clientCredentialsToken(proxied.url, DEMO.app);
  });

  afterAll(async () => {
    await proxied?.close();
  });

  /** What the upstream received for a call through the two proxies, which sent `headers`. */
  async function through(headers: Record<string, string | string[]>): Promise<IncomingHttpHeaders> {
    const res = await raw("/echo/proxied", "GET", { Authorization: `Bearer ${proxiedToken}`, ...headers }, proxied.url);
    expect(res.status, res.body).toBe(200);
    return (JSON.parse(res.body) as Hit).headers;
  }

  it("keeps the chain the trusted proxies vouch for, from the client on, appends its own hop, and takes https from them (RFC 7239 §7)", async () => {
    const host = new URL(proxied.url).host;
    // The client wrote 203.0.113.7 itself; the outer proxy appended the client's address, the inner one the outer's.
    const received = await through({ "X-Forwarded-For": "203.0.113.7, 198.51.100.17, 10.0.0.2", "X-Forwarded-Proto": "https" });
    expect(received["x-forwarded-for"]).toBe("198.51.100.17, 10.0.0.2, 127.0.0.1");
    expect(received.forwarded).toBe(`for=198.51.100.17;host="${host}";proto=https, for=10.0.0.2, for=127.0.0.1`);
    expect(received["x-real-ip"]).toBe("198.51.100.17");
    expect(received["x-forwarded-proto"]).toBe("https");
    expect(received["x-forwarded-host"]).toBe(host);
    expect(received["x-forwarded-port"]).toBe(new URL(proxied.url).port);
  });

  it("brackets and quotes an IPv6 client in Forwarded, and reads X-Forwarded-Proto as Express does (first value; anything but https is http)", async () => {
    const received = await through({ "X-Forwarded-For": "2001:db8:cafe::17, 10.0.0.2", "X-Forwarded-Proto": "HTTPS, http" });
    expect(received.forwarded).toMatch(/^for="\[2001:db8:cafe::17\]";host="[^"]+";proto=https, for=10\.0\.0\.2, for=127\.0\.0\.1$/);
    expect(received["x-real-ip"]).toBe("2001:db8:cafe::17");
    for (const proto of ["http, https", "ftp", "", "https-ish"]) expect((await through({ "X-Forwarded-For": "198.51.100.17", "X-Forwarded-Proto": proto }))["x-forwarded-proto"], proto).toBe("http");
    expect((await through({ "X-Forwarded-For": "198.51.100.17" }))["x-forwarded-proto"]).toBe("http");
  });

  it("drops the caller's Forwarded, X-Forwarded-Host/-Port, X-Real-IP and the like, which a proxy such as the README's nginx passes through unchanged", async () => {
    const host = new URL(proxied.url).host;
    const { "X-Forwarded-For": _xff, "X-FORWARDED-PROTO": _proto, ...spoofed } = SPOOFED_FORWARDING;
    const received = await through({ ...spoofed, "X-Forwarded-For": "198.51.100.17" });
    expect(received.forwarded).toBe(`for=198.51.100.17;host="${host}";proto=http, for=127.0.0.1`);
    expect(received["x-forwarded-for"]).toBe("198.51.100.17, 127.0.0.1");
    expect(received["x-forwarded-host"]).toBe(host);
    expectNoSpoofReached(received);
  });
});

describe("X-Content-Type-Options", () => {
  it("is nosniff on the gateway's own answers too: 400, 401, 403, 404, 405 and 502", async () => {
    const bearer = { Authorization: `Bearer ${appToken}` };
    const answers: [number, { status: number; headers: IncomingHttpHeaders }][] = [
      [400, await raw("/echo/../x", "GET", bearer)],
      [401, await raw("/echo/a", "GET", {})],
      [403, await raw("/orphan/a", "GET", bearer)],
      [404, await raw("/no-such-api/x", "GET", bearer)],
      [405, await raw("/echo/a", "OPTIONS", bearer)],
    ];
    for (const [status, answer] of answers) {
      expect(answer.status).toBe(status);
      expect(answer.headers["x-content-type-options"], String(status)).toBe("nosniff");
    }
    const down = await gw("/down/anything", { headers: bearer, expect5xx: 502 });
    expect(down.status).toBe(502);
    expect(down.headers.get("x-content-type-options")).toBe("nosniff");
  });
});
