/**
 * Signed introspection responses (RFC 9701, FAPI 2.0 Message Signing §5.5) on a real server on
 * 127.0.0.1: openid-client 6 as the resource server asks for and validates them; the JWT checked
 * against our JWK Set, its claims, the app's algorithm, the inactive token, the `Accept` header's
 * variants, and the answer when no key can sign. Tokens come from the real token endpoint.
 */
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from "jose";
import * as client from "openid-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { basic, clientCredentialsToken, INTROSPECTION_ENDPOINT, read, request, type Answer } from "./support/flow.js";
import { startIssuerServer, withHsmIssuerServer } from "./support/oauth4webapi.js";
import type { TestServer } from "./support/server.js";

const JWT_MEDIA_TYPE = "application/token-introspection+jwt";

let server: TestServer;
let issuer: URL;

beforeAll(async () => {
  ({ server, issuer } = await startIssuerServer({ PURGE_INTERVAL_SECONDS: "0" }));
  await server.keyring.ready();
});
afterAll(() => server?.close());

/** POSTs `token` to the introspection endpoint of `at` as DEMO.strictApp, with `accept` as the Accept header (none when undefined). */
async function introspect(token: string, accept: string | undefined, at: URL = issuer, expect5xx?: number): Promise<Answer> {
  const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded", Authorization: basic(DEMO.strictApp.consumerKey, DEMO.strictApp.consumerSecret) };
  if (accept !== undefined) headers.Accept = accept;
  return read(await request(new URL(INTROSPECTION_ENDPOINT, at), { method: "POST", headers, body: new URLSearchParams({ token }).toString(), expect5xx }));
}

/** The JWK Set of `at`. */
async function jwks(at: URL = issuer): Promise<JSONWebKeySet> {
  return (await read(await request(new URL("/oauth2/v1/jwks", at)))).body as unknown as JSONWebKeySet;
}

/** Sets the introspection algorithm of DEMO.strictApp's app (the catalog cache follows Prisma writes). */
async function setAlg(alg: "PS256" | "ES256"): Promise<void> {
  await server.prisma.app.updateMany({ where: { name: DEMO.strictApp.name }, data: { introspectionSignedResponseAlg: alg } });
}

/** openid-client's configuration of DEMO.strictApp as a resource server asking for `alg`-signed introspection responses, signatures checked against the JWK Set. */
async function resourceServer(alg: "PS256" | "ES256", contentTypes: string[]): Promise<client.Configuration> {
  const config = await client.discovery(
    issuer,
    DEMO.strictApp.consumerKey,
    { client_secret: DEMO.strictApp.consumerSecret, introspection_signed_response_alg: alg },
    client.ClientSecretBasic(DEMO.strictApp.consumerSecret),
    { execute: [client.allowInsecureRequests] },
  );
  config[client.customFetch] = async (url, options) => {
    const answer = await request(url, options as RequestInit);
    if (url.endsWith(INTROSPECTION_ENDPOINT)) contentTypes.push(answer.headers.get("content-type") ?? "");
    return answer;
  };
  client.enableNonRepudiationChecks(config);
  return config;
}

describe("RFC 9701 with openid-client 6 as the resource server", () => {
  it("RFC 9701 §7: the metadata lists introspection_signing_alg_values_supported PS256 and ES256", async () => {
    const metadata = (await read(await request(new URL("/.well-known/oauth-authorization-server", issuer)))).body as Record<string, unknown>;
    expect(metadata.introspection_signing_alg_values_supported).toEqual(["PS256", "ES256"]);
  });

  it("RFC 9701 §4, §5: openid-client asks for a JWT and validates it (typ, iss, aud, iat, signature against the JWK Set)", async () => {
    const contentTypes: string[] = [];
    const config = await resourceServer("PS256", contentTypes);
    const token = await clientCredentialsToken(issuer.href, DEMO.app);
    const answer = await client.tokenIntrospection(config, token);
    expect(contentTypes).toEqual([JWT_MEDIA_TYPE]);
    expect(answer).toMatchObject({ active: true, client_id: DEMO.app.consumerKey, iss: issuer.origin, token_type: "Bearer" });
  });

  it("RFC 9701 §6: ES256 when the app's introspection_signed_response_alg says so", async () => {
    await setAlg("ES256");
    try {
      const contentTypes: string[] = [];
      const config = await resourceServer("ES256", contentTypes);
      const token = await clientCredentialsToken(issuer.href, DEMO.app);
      expect((await client.tokenIntrospection(config, token)).active).toBe(true);
      expect(contentTypes).toEqual([JWT_MEDIA_TYPE]);
      expect(decodeProtectedHeader((await introspect(token, JWT_MEDIA_TYPE)).text)).toMatchObject({ alg: "ES256", typ: "token-introspection+jwt" });
    } finally {
      await setAlg("PS256");
    }
  });
});

describe("RFC 9701 §5: the JWT response", () => {
  it("RFC 9701 §5: verifies against /oauth2/v1/jwks with typ token-introspection+jwt; iss, aud, iat and token_introspection holding the JSON response; no sub, no exp", async () => {
    const token = await clientCredentialsToken(issuer.href, DEMO.app);
    const before = Math.floor(Date.now() / 1000);
    const answer = await introspect(token, JWT_MEDIA_TYPE);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toBe(JWT_MEDIA_TYPE);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    const { payload, protectedHeader } = await jwtVerify(answer.text, createLocalJWKSet(await jwks()), {
      typ: "token-introspection+jwt",
      algorithms: ["PS256"],
      issuer: issuer.origin,
      audience: DEMO.strictApp.consumerKey,
    });
    expect(protectedHeader.kid).toEqual(expect.any(String));
    expect(Object.keys(payload).sort()).toEqual(["aud", "iat", "iss", "token_introspection"]);
    expect(payload.iat).toBeGreaterThanOrEqual(before);
    const json = await introspect(token, "application/json");
    expect(payload.token_introspection).toEqual(json.body);
  });

  it("RFC 9701 §5: an inactive token is token_introspection {active: false}, signed all the same", async () => {
    const answer = await introspect("no-such-token", JWT_MEDIA_TYPE);
    expect(answer.status).toBe(200);
    const { payload } = await jwtVerify(answer.text, createLocalJWKSet(await jwks()), { typ: "token-introspection+jwt", issuer: issuer.origin, audience: DEMO.strictApp.consumerKey });
    expect(payload.token_introspection).toEqual({ active: false });
  });

  it("RFC 9701 §4: the Accept header decides, by quality (RFC 9110 §12.5.1); JSON when it is preferred, a wildcard or absent", async () => {
    const token = await clientCredentialsToken(issuer.href, DEMO.app);
    const cases: [string | undefined, "jwt" | "json"][] = [
      [undefined, "json"],
      ["application/json", "json"],
      ["*/*", "json"],
      ["application/*", "json"],
      [`${JWT_MEDIA_TYPE};q=0`, "json"],
      [`application/json, ${JWT_MEDIA_TYPE};q=0.5`, "json"],
      [`${JWT_MEDIA_TYPE};q=0.5, */*;q=0.9`, "json"],
      [`${JWT_MEDIA_TYPE};q=1.5`, "json"],
      [JWT_MEDIA_TYPE, "jwt"],
      ["Application/Token-Introspection+JWT", "jwt"],
      [`application/json;q=0.8, ${JWT_MEDIA_TYPE};q=0.9`, "jwt"],
      [`${JWT_MEDIA_TYPE}, application/json`, "jwt"],
      [`${JWT_MEDIA_TYPE} ; q=0.7 , */*;q=0.2`, "jwt"],
    ];
    for (const [accept, expected] of cases) {
      const answer = await introspect(token, accept);
      expect(answer.status, String(accept)).toBe(200);
      if (expected === "jwt") {
        expect(answer.headers.get("content-type"), String(accept)).toBe(JWT_MEDIA_TYPE);
        expect((decodeJwt(answer.text).token_introspection as { active: boolean }).active).toBe(true);
      } else {
        expect(answer.headers.get("content-type"), String(accept)).toBe("application/json; charset=utf-8");
        expect(answer.body, String(accept)).toMatchObject({ active: true });
      }
    }
  });
});

describe("RFC 9701 §5 with the signing keys in an HSM (SoftHSM2)", () => {
  it("with the device away, a JWT asked for is 503 temporarily_unavailable, never an unsigned answer; JSON is still answered; with it back, JWTs again", async () => {
    await withHsmIssuerServer("tollgate-introspection", "pin-7a3c91", async (hsm, device) => {
      const accessToken = await clientCredentialsToken(hsm.issuer.href, DEMO.app);
      expect((await introspect(accessToken, JWT_MEDIA_TYPE, hsm.issuer)).headers.get("content-type")).toBe(JWT_MEDIA_TYPE);

      device.takeAway();
      const refused = await introspect(accessToken, JWT_MEDIA_TYPE, hsm.issuer, 503);
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toEqual(expect.any(String));
      expect(refused.body).toEqual({ error: "temporarily_unavailable", error_description: "the introspection response cannot be signed now: try again later" });
      expect((await introspect(accessToken, "application/json", hsm.issuer)).body).toMatchObject({ active: true });

      device.bringBack();
      const again = await introspect(accessToken, JWT_MEDIA_TYPE, hsm.issuer);
      await jwtVerify(again.text, createLocalJWKSet(await jwks(hsm.issuer)), { typ: "token-introspection+jwt", issuer: hsm.issuer.origin, audience: DEMO.strictApp.consumerKey });
    });
  });
});
