/**
 * The FAPI 2.0 Security Profile (Final, February 2025), section 5, against the running
 * server: one test per requirement on an authorization server (§5.3.2.1 general, §5.3.2.2
 * authorization code flow) or a resource server (§5.3.4, our gateway), and the
 * cryptography of §5.4.1, each named by its clause. The client is the seeded `fapi2` demo
 * app (private_key_jwt with the demo key, DPoP with a key of the test's own).
 */
import { createPublicKey, randomUUID } from "node:crypto";
import { exportJWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_FAPI_PUBLIC_JWKS } from "../src/demo/fapi-key.js";
import { DEMO } from "../src/demo/seed.js";
import { CLIENT_ASSERTION_TYPE } from "../src/oauth/client-assertion.js";
import { hashSecret } from "../src/kernel/secrets.js";
import {
  DpopKey,
  FAPI_CLIENT_ID,
  PAR_ENDPOINT,
  assertionFields,
  authorizePushed,
  clientAssertion,
  dpopCall,
  exchangeCode,
  fapiCode,
  fapiTokens,
  postForm,
  pushRequest,
  pushedParams,
  refresh,
} from "./support/fapi.js";
import { Browser, INTROSPECTION_ENDPOINT, REVOCATION_ENDPOINT, TOKEN_ENDPOINT, basic, callApi, expectOAuthError, pkcePair, request, send } from "./support/flow.js";
import { startIssuerServer } from "./support/oauth4webapi.js";
import { addOpenDataApi, OPEN_DATA } from "./support/open-data.js";
import type { TestServer } from "./support/server.js";

let server: TestServer;
let base: string;

beforeAll(async () => {
  ({ server } = await startIssuerServer({ CORS_ORIGINS: "https://spa.example" }));
  base = server.url;
  // Where a client credentials token may call (account data needs the PSU).
  await addOpenDataApi(server);
});
afterAll(() => server?.close());

/** Introspects `token` as the demo strict app, which may introspect. */
async function introspect(token: string) {
  const res = await send(`${base}${INTROSPECTION_ENDPOINT}`, {
    method: "POST",
    headers: { Authorization: basic(DEMO.strictApp.consumerKey, DEMO.strictApp.consumerSecret), "Content-Type": "application/x-www-form-urlencoded" },
    body: `token=${encodeURIComponent(token)}`,
  });
  expect(res.status).toBe(200);
  return res.body;
}

/** A client credentials request of the fapi2 app with private_key_jwt and a proof by `key`. */
async function clientCredentials(key: DpopKey | undefined, assertion: Record<string, string> | Promise<Record<string, string>> = assertionFields(base)) {
  const headers: Record<string, string> = key ? { DPoP: await key.proof("POST", `${base}${TOKEN_ENDPOINT}`) } : {};
  return postForm(base, TOKEN_ENDPOINT, { grant_type: "client_credentials", scope: "aisp", ...(await assertion) }, headers);
}

describe("FAPI 2.0 §5.3.2.1 authorization server: general requirements", () => {
  it("§5.3.2.1-1 distributes its metadata (RFC 8414) with PAR, private_key_jwt, DPoP and their algorithms", async () => {
    const m = (await send(`${base}/.well-known/oauth-authorization-server`)).body;
    expect(m.issuer).toBe(base);
    expect(m.pushed_authorization_request_endpoint).toBe(`${base}${PAR_ENDPOINT}`);
    expect(m.token_endpoint_auth_methods_supported).toContain("private_key_jwt");
    expect(m.token_endpoint_auth_signing_alg_values_supported).toEqual(["PS256", "ES256", "EdDSA"]);
    expect(m.dpop_signing_alg_values_supported).toEqual(["PS256", "ES256", "EdDSA"]);
    expect(m.authorization_response_iss_parameter_supported).toBe(true);
    expect(m.code_challenge_methods_supported).toEqual(["S256"]);
  });

  it("§5.3.2.1-2 rejects the resource owner password credentials grant", async () => {
    const key = await DpopKey.generate();
    const answer = await postForm(base, TOKEN_ENDPOINT, { grant_type: "password", username: "alice", password: DEMO.user.password, ...(await assertionFields(base)) }, { DPoP: await key.proof("POST", `${base}${TOKEN_ENDPOINT}`) });
    await expectOAuthError(answer, 400, "unsupported_grant_type");
  });

  it("§5.3.2.1-3 only serves confidential clients: no token without client authentication", async () => {
    const key = await DpopKey.generate();
    const answer = await postForm(base, TOKEN_ENDPOINT, { grant_type: "client_credentials", client_id: FAPI_CLIENT_ID }, { DPoP: await key.proof("POST", `${base}${TOKEN_ENDPOINT}`) });
    await expectOAuthError(answer, 401, "invalid_client");
  });

  it("§5.3.2.1-4 issues only sender-constrained access tokens: a token request without a DPoP proof (or a certificate) is refused as invalid_request", async () => {
    // A missing sender constraint, not a bad proof: the OIDF FAPI 2.0 plan expects invalid_request (or invalid_grant, invalid_client).
    await expectOAuthError(await clientCredentials(undefined), 400, "invalid_request");
  });

  it("§5.3.2.1-5 constrains tokens with DPoP: token_type DPoP, cnf.jkt on introspection, RFC 6749 response members only", async () => {
    const key = await DpopKey.generate();
    const answer = await clientCredentials(key);
    expect(answer.status, answer.text).toBe(200);
    expect(Object.keys(answer.body).sort()).toEqual(["access_token", "expires_in", "scope", "token_type"]);
    expect(answer.body.token_type).toBe("DPoP");
    expect(typeof answer.body.expires_in).toBe("number");
    const introspected = await introspect(answer.body.access_token);
    expect(introspected).toMatchObject({ active: true, token_type: "DPoP", cnf: { jkt: key.jkt } });
  });

  it("§5.3.2.1-6 authenticates clients with private_key_jwt only: the app's consumer secret is refused", async () => {
    await server.prisma.credential.update({ where: { consumerKey: FAPI_CLIENT_ID }, data: { consumerSecretHash: hashSecret("known-secret") } });
    const key = await DpopKey.generate();
    const answer = await postForm(base, TOKEN_ENDPOINT, { grant_type: "client_credentials" }, { Authorization: basic(FAPI_CLIENT_ID, "known-secret"), DPoP: await key.proof("POST", `${base}${TOKEN_ENDPOINT}`) });
    const body = await expectOAuthError(answer, 401, "invalid_client");
    expect(body.error_description).toBe("this client may not authenticate with client_secret_basic");
  });

  it("§5.3.2.1-8 accepts its issuer identifier as the assertion's aud, as a string only: no array, no endpoint URL (draft-ietf-oauth-rfc7523bis)", async () => {
    const answer = await clientCredentials(await DpopKey.generate(), assertionFields(base, { claims: { aud: base } }));
    expect(answer.status, answer.text).toBe(200);
    for (const aud of [[base], `${base}${TOKEN_ENDPOINT}`, [base, "https://other.example"], "https://other.example", `${base}/`]) {
      await expectOAuthError(await clientCredentials(await DpopKey.generate(), assertionFields(base, { claims: { aud } })), 401, "invalid_client");
    }
  });

  it("§5.3.2.1-9 does not rotate refresh tokens; they stay bound to the DPoP key", async () => {
    const key = await DpopKey.generate();
    const tokens = await fapiTokens(base, key);
    expect(tokens.token_type).toBe("DPoP");
    for (let i = 0; i < 2; i++) {
      const answer = await refresh(base, tokens.refresh_token, key);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.body.token_type).toBe("DPoP");
      expect(answer.body.refresh_token).toBeUndefined();
      expect((await introspect(answer.body.access_token)).cnf).toEqual({ jkt: key.jkt });
    }
    expect((await introspect(tokens.refresh_token)).active).toBe(true);
    await expectOAuthError(await refresh(base, tokens.refresh_token, await DpopKey.generate()), 400, "invalid_grant");
    // No proof at all is a missing sender constraint, not a bad proof.
    await expectOAuthError(await refresh(base, tokens.refresh_token, undefined), 400, "invalid_request");
  });

  it("§5.3.2.1-11 issues authorization codes that live at most 60 seconds", async () => {
    const { code } = await fapiCode(base);
    const row = await server.prisma.authorizationCode.findUnique({ where: { codeHash: hashSecret(code) } });
    expect(row!.expiresAt.getTime() - row!.createdAt.getTime()).toBeLessThanOrEqual(60_000);
    expect(row!.expiresAt.getTime() - row!.createdAt.getTime()).toBeGreaterThan(55_000);
  });

  it("§5.3.2.1-12 binds the authorization code to the DPoP key: dpop_jkt at PAR, or the PAR request's own proof", async () => {
    const bound = await DpopKey.generate();
    const byParameter = await fapiCode(base, { dpop_jkt: bound.jkt });
    await expectOAuthError(await exchangeCode(base, byParameter.code, byParameter.verifier, await DpopKey.generate()), 400, "invalid_grant");
    const again = await fapiCode(base, { dpop_jkt: bound.jkt });
    expect((await exchangeCode(base, again.code, again.verifier, bound)).status).toBe(200);

    const byProof = await fapiCode(base, {}, { DPoP: await bound.proof("POST", `${base}${PAR_ENDPOINT}`) });
    await expectOAuthError(await exchangeCode(base, byProof.code, byProof.verifier, await DpopKey.generate()), 400, "invalid_grant");
    const mismatch = await pushRequest(base, pushedParams(pkcePair().challenge, { dpop_jkt: (await DpopKey.generate()).jkt }), { DPoP: await bound.proof("POST", `${base}${PAR_ENDPOINT}`) });
    await expectOAuthError(mismatch, 400, "invalid_dpop_proof");
  });

  it("§5.3.2.1-13 accepts iat and nbf up to 10 s in the future and rejects more than 60 s", async () => {
    const now = Math.floor(Date.now() / 1000);
    const soon = await clientCredentials(await DpopKey.generate(), assertionFields(base, { claims: { iat: now + 5, nbf: now + 5 } }));
    expect(soon.status, soon.text).toBe(200);
    for (const claims of [{ iat: now + 61 }, { nbf: now + 61 }]) {
      const body = await expectOAuthError(await clientCredentials(await DpopKey.generate(), assertionFields(base, { claims })), 401, "invalid_client");
      expect(body.error_description).toMatch(/future/);
    }
    const key = await DpopKey.generate();
    const proofSoon = await postForm(base, TOKEN_ENDPOINT, { grant_type: "client_credentials", ...(await assertionFields(base)) }, { DPoP: await key.proof("POST", `${base}${TOKEN_ENDPOINT}`, undefined, { claims: { iat: now + 5 } }) });
    expect(proofSoon.status, proofSoon.text).toBe(200);
    const proofLate = await postForm(base, TOKEN_ENDPOINT, { grant_type: "client_credentials", ...(await assertionFields(base)) }, { DPoP: await key.proof("POST", `${base}${TOKEN_ENDPOINT}`, undefined, { claims: { iat: now + 61 } }) });
    await expectOAuthError(proofLate, 400, "invalid_dpop_proof");
  });

  it("§5.3.2.1 authorization codes are single use: a second exchange fails and revokes the tokens", async () => {
    const key = await DpopKey.generate();
    const { code, verifier } = await fapiCode(base);
    const first = await exchangeCode(base, code, verifier, key);
    expect(first.status).toBe(200);
    await expectOAuthError(await exchangeCode(base, code, verifier, key), 400, "invalid_grant");
    expect((await introspect(first.body.access_token)).active).toBe(false);
  });
});

describe("FAPI 2.0 §5.3.2.2 authorization server: authorization code flow", () => {
  it("§5.3.2.2-1 supports only the authorization code response type", async () => {
    const answer = await pushRequest(base, pushedParams(pkcePair().challenge, { response_type: "token" }));
    await expectOAuthError(answer, 400, "unsupported_response_type");
  });

  it("§5.3.2.2-2 rejects authorization requests sent without PAR", async () => {
    const pkce = pkcePair();
    const query = new URLSearchParams({ client_id: FAPI_CLIENT_ID, ...(pushedParams(pkce.challenge) as Record<string, string>) });
    const res = await request(`${base}/authorize?${query}`);
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location")!);
    expect(`${location.origin}${location.pathname}`).toBe(DEMO.callbackUrl);
    expect(location.searchParams.get("error")).toBe("invalid_request");
    expect(location.searchParams.get("error_description")).toMatch(/PAR/);
  });

  it("§5.3.2.2-3 rejects pushed authorization requests without client authentication", async () => {
    const answer = await postForm(base, PAR_ENDPOINT, { client_id: FAPI_CLIENT_ID, ...pushedParams(pkcePair().challenge) });
    await expectOAuthError(answer, 401, "invalid_client");
  });

  it("§5.3.2.2-4 requires PKCE with S256", async () => {
    await expectOAuthError(await pushRequest(base, pushedParams(pkcePair().challenge, { code_challenge: undefined, code_challenge_method: undefined })), 400, "invalid_request");
    const verifier = pkcePair().verifier;
    await expectOAuthError(await pushRequest(base, pushedParams(verifier, { code_challenge_method: "plain" })), 400, "invalid_request");
  });

  it("§5.3.2.2-5 requires redirect_uri in pushed authorization requests, exactly registered", async () => {
    await expectOAuthError(await pushRequest(base, pushedParams(pkcePair().challenge, { redirect_uri: undefined })), 400, "invalid_request");
    await expectOAuthError(await pushRequest(base, pushedParams(pkcePair().challenge, { redirect_uri: `${DEMO.callbackUrl}/` })), 400, "invalid_request");
  });

  it("§5.3.2.2-6 returns the iss parameter in the authorization response (RFC 9207)", async () => {
    const { callback } = await fapiCode(base);
    expect(callback.iss).toBe(base);
  });

  it("§5.3.2.2-7 issues request_uri values that expire in less than 600 seconds (60), used until a code is issued, by their own client", async () => {
    const pushed = await pushRequest(base, pushedParams(pkcePair().challenge));
    expect(pushed.status).toBe(201);
    expect(pushed.body.expires_in).toBe(60);
    expect(pushed.body.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:/);
    expect(pushed.headers.get("cache-control")).toBe("no-store");
    // Another client presenting it gets an error page, and uses nothing up (note 3: usable until the authorization completes).
    const foreign = await request(`${base}/authorize?client_id=${DEMO.strictApp.consumerKey}&request_uri=${encodeURIComponent(pushed.body.request_uri)}`);
    expect(foreign.status).toBe(400);
    const own = await request(`${base}/authorize?client_id=${FAPI_CLIENT_ID}&request_uri=${encodeURIComponent(pushed.body.request_uri)}`);
    expect(own.status).toBe(302);
    expect(own.headers.get("location")).toMatch(/^\/login\?interaction=/);

    const fresh = await pushRequest(base, pushedParams(pkcePair().challenge));
    expect((await authorizePushed(base, fresh.body.request_uri)).code).toBeTruthy();
    expect((await request(`${base}/authorize?client_id=${FAPI_CLIENT_ID}&request_uri=${encodeURIComponent(fresh.body.request_uri)}`)).status).toBe(400);
  });

  it("§5.3.2.2-7 with a request_uri, /authorize refuses a parameter beside it that differs from the pushed one", async () => {
    const pushed = await pushRequest(base, pushedParams(pkcePair().challenge));
    const res = await request(`${base}/authorize?client_id=${FAPI_CLIENT_ID}&request_uri=${encodeURIComponent(pushed.body.request_uri)}&scope=pisp`);
    expect(res.status).toBe(400);
    expect(await res.text()).not.toContain("code=");
  });

  it("§5.3.2.2-8 rejects a request_uri in the pushed request itself (RFC 9126 §2.1)", async () => {
    await expectOAuthError(await pushRequest(base, pushedParams(pkcePair().challenge, { request_uri: "urn:ietf:params:oauth:request_uri:x" })), 400, "invalid_request");
  });

  it("§5.3.2.2-12 does not support CORS on the authorization endpoint, even with CORS origins configured", async () => {
    const pushed = await pushRequest(base, pushedParams(pkcePair().challenge));
    const url = `${base}/authorize?client_id=${FAPI_CLIENT_ID}&request_uri=${encodeURIComponent(pushed.body.request_uri)}`;
    const get = await request(url, { headers: { Origin: "https://spa.example" } });
    expect(get.headers.get("access-control-allow-origin")).toBeNull();
    const preflight = await request(url, { method: "OPTIONS", headers: { Origin: "https://spa.example", "Access-Control-Request-Method": "GET" } });
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    // The setting itself works: the metadata endpoint answers the same origin.
    const metadata = await request(`${base}/.well-known/oauth-authorization-server`, { headers: { Origin: "https://spa.example" } });
    expect(metadata.headers.get("access-control-allow-origin")).toBe("https://spa.example");
  });
});

describe("FAPI 2.0 §5.3.4 resource server: the gateway", () => {
  it("§5.3.4-1 accepts a DPoP-bound access token in the Authorization header with its proof, and tells the upstream", async () => {
    const key = await DpopKey.generate();
    const { access_token } = await fapiTokens(base, key);
    const answer = await dpopCall(base, access_token, key, "/accounts/echo/");
    expect(answer.status, answer.text).toBe(200);
    const { headers } = answer.body.request;
    expect(headers["x-dpop-jkt"]).toBe(key.jkt);
    expect(headers.dpop).toBeUndefined();
    expect(headers.authorization).toBeUndefined();
  });

  it("§5.3.4-5 the admin API, which takes no DPoP proof, refuses a DPoP-bound token sent as Bearer", async () => {
    const key = await DpopKey.generate();
    const { access_token } = await fapiTokens(base, key);
    const answer = await send(`${base}/graphql`, {
      method: "POST",
      headers: { Authorization: `Bearer ${access_token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ query: "{ me { username } }" }),
    });
    expect(answer.body.errors?.[0]?.extensions?.code, answer.text).toBe("UNAUTHENTICATED");
    expect(answer.body.errors[0].message).toMatch(/DPoP-bound/);
  });

  it("§5.3.4-2 does not accept access tokens in the query", async () => {
    const key = await DpopKey.generate();
    const { access_token } = await fapiTokens(base, key);
    const answer = await send(`${base}/accounts/?access_token=${encodeURIComponent(access_token)}`);
    expect(answer.status).toBe(401);
  });

  it("§5.3.4-3 verifies the token's validity, expiry and revocation", async () => {
    const key = await DpopKey.generate();
    const { access_token } = await fapiTokens(base, key);
    const revoked = await postForm(base, REVOCATION_ENDPOINT, { token: access_token, ...(await assertionFields(base)) });
    expect(revoked.status, revoked.text).toBe(200);
    const answer = await dpopCall(base, access_token, key);
    expect(answer.status).toBe(401);
    expect(answer.headers.get("www-authenticate")).toMatch(/^DPoP .*error="invalid_token".*algs="PS256 ES256 EdDSA"/);
  });

  it("§5.3.4-4 verifies that the token's authorization suffices for the API", async () => {
    const key = await DpopKey.generate();
    const { access_token } = await fapiTokens(base, key, { scope: "pisp" });
    const answer = await dpopCall(base, access_token, key);
    expect(answer.status).toBe(403);
    expect(answer.headers.get("www-authenticate")).toMatch(/^DPoP .*error="insufficient_scope"/);
  });

  describe("§5.3.4-5 verifies the sender constraint (RFC 9449 §7)", () => {
    let key: DpopKey;
    let token: string;
    beforeAll(async () => {
      key = await DpopKey.generate();
      token = (await fapiTokens(base, key)).access_token;
    });
    const challenge = (answer: { status: number; headers: Headers }, error: string) => {
      expect(answer.status).toBe(401);
      expect(answer.headers.get("www-authenticate")).toMatch(new RegExp(`^DPoP realm="[^"]*", error="${error}", error_description="[^"]*", algs="PS256 ES256 EdDSA"$`));
    };

    it("a DPoP-bound token sent as Bearer", async () => challenge(await callApi(base, token), "invalid_token"));
    it("a DPoP-bound token sent as Bearer, even with a valid proof", async () => challenge(await dpopCall(base, token, key, "/accounts/", { scheme: "Bearer" }), "invalid_token"));
    it("no proof", async () => challenge(await send(`${base}/accounts/`, { headers: { Authorization: `DPoP ${token}` } }), "invalid_dpop_proof"));
    it("a proof made with another key", async () => challenge(await dpopCall(base, token, await DpopKey.generate()), "invalid_dpop_proof"));
    it("a replayed proof jti", async () => {
      const proof = await key.proof("GET", `${base}/accounts/`, token);
      const call = () => send(`${base}/accounts/`, { headers: { Authorization: `DPoP ${token}`, DPoP: proof } });
      expect((await call()).status).toBe(200);
      challenge(await call(), "invalid_dpop_proof");
    });
    it("a wrong htu", async () => challenge(await dpopCall(base, token, key, "/accounts/", { claims: { htu: `${base}/accounts/acc-001` } }), "invalid_dpop_proof"));
    it("a wrong htm", async () => challenge(await dpopCall(base, token, key, "/accounts/", { claims: { htm: "POST" } }), "invalid_dpop_proof"));
    it("a wrong ath", async () => challenge(await dpopCall(base, token, key, "/accounts/", { claims: { ath: "x".repeat(43) } }), "invalid_dpop_proof"));
    it("no ath", async () => challenge(await dpopCall(base, token, key, "/accounts/", { claims: { ath: undefined } }), "invalid_dpop_proof"));
    it("a bearer token sent as DPoP", async () => {
      const strict = await postForm(base, TOKEN_ENDPOINT, { grant_type: "client_credentials" }, { Authorization: basic(DEMO.strictApp.consumerKey, DEMO.strictApp.consumerSecret) });
      challenge(await dpopCall(base, strict.body.access_token, key, OPEN_DATA), "invalid_token");
      expect((await callApi(base, strict.body.access_token, OPEN_DATA)).status).toBe(200);
    });
    it("the query is not part of htu", async () => {
      expect((await dpopCall(base, token, key, "/accounts/?page=2")).status).toBe(200);
    });
  });
});

describe("FAPI 2.0 §5.4.1 cryptography: PS256, ES256 and EdDSA only", () => {
  it("accepts DPoP proofs signed with PS256, ES256 and EdDSA (Ed25519)", async () => {
    for (const alg of ["PS256", "ES256", "EdDSA"]) {
      const answer = await clientCredentials(await DpopKey.generate(alg));
      expect(answer.status, `${alg}: ${answer.text}`).toBe(200);
    }
  });

  it("refuses RS256 proofs and assertions", async () => {
    await expectOAuthError(await clientCredentials(await DpopKey.generate("RS256")), 400, "invalid_dpop_proof");
    const rsa = await DpopKey.generate("RS256");
    await expectOAuthError(await clientCredentials(await DpopKey.generate(), assertionFields(base, { alg: "RS256", key: rsa.privateKey })), 401, "invalid_client");
  });
});

describe("DPoP server nonces (RFC 9449 §8), valid across instances", () => {
  let a: TestServer;
  let b: TestServer;
  const secret = "a-shared-dpop-nonce-secret-of-32-characters";
  beforeAll(async () => {
    [a, b] = await Promise.all([startIssuerServer({ DPOP_NONCES: "true", DPOP_NONCE_SECRET: secret }), startIssuerServer({ DPOP_NONCES: "true", DPOP_NONCE_SECRET: secret })].map((p) => p.then((s) => s.server)));
    await addOpenDataApi(a);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it("asks for a nonce with use_dpop_nonce, accepts a proof with it, and accepts another instance's nonce", async () => {
    const key = await DpopKey.generate();
    const ask = async (srv: TestServer, nonce?: string) =>
      postForm(srv.url, TOKEN_ENDPOINT, { grant_type: "client_credentials", ...(await assertionFields(srv.url)) }, { DPoP: await key.proof("POST", `${srv.url}${TOKEN_ENDPOINT}`, undefined, { claims: { nonce } }) });
    const first = await ask(a);
    await expectOAuthError(first, 400, "use_dpop_nonce");
    const nonce = first.headers.get("dpop-nonce")!;
    expect(nonce).toBeTruthy();
    const withNonce = await ask(b, nonce);
    expect(withNonce.status, withNonce.text).toBe(200);
    expect(withNonce.headers.get("dpop-nonce")).toBeTruthy();
    await expectOAuthError(await ask(a, "not-a-nonce"), 400, "use_dpop_nonce");
  });

  it("at the gateway answers 401 use_dpop_nonce with a DPoP-Nonce", async () => {
    const key = await DpopKey.generate();
    const first = await postForm(a.url, TOKEN_ENDPOINT, { grant_type: "client_credentials", ...(await assertionFields(a.url)) }, { DPoP: await key.proof("POST", `${a.url}${TOKEN_ENDPOINT}`) });
    const nonce = first.headers.get("dpop-nonce")!;
    const issued = await postForm(a.url, TOKEN_ENDPOINT, { grant_type: "client_credentials", scope: "aisp", ...(await assertionFields(a.url)) }, { DPoP: await key.proof("POST", `${a.url}${TOKEN_ENDPOINT}`, undefined, { claims: { nonce } }) });
    expect(issued.status, issued.text).toBe(200);
    const without = await dpopCall(a.url, issued.body.access_token, key, OPEN_DATA);
    expect(without.status).toBe(401);
    expect(without.headers.get("www-authenticate")).toMatch(/error="use_dpop_nonce"/);
    const again = await dpopCall(a.url, issued.body.access_token, key, OPEN_DATA, { claims: { nonce: without.headers.get("dpop-nonce")! } });
    expect(again.status, again.text).toBe(200);
  });
});

describe("private_key_jwt on the other endpoints", () => {
  it("authenticates the fapi2 app at the revocation endpoint, and a standard app's client secret still works there", async () => {
    const key = await DpopKey.generate();
    const { refresh_token } = await fapiTokens(base, key);
    // aud is the issuer identifier at every endpoint (FAPI 2.0 §5.3.2.1), never the endpoint's URL.
    const atEndpoint = await postForm(base, REVOCATION_ENDPOINT, { token: refresh_token, ...(await assertionFields(base, { claims: { aud: `${base}${REVOCATION_ENDPOINT}` } })) });
    await expectOAuthError(atEndpoint, 401, "invalid_client");
    const revoked = await postForm(base, REVOCATION_ENDPOINT, { token: refresh_token, ...(await assertionFields(base)) });
    expect(revoked.status, revoked.text).toBe(200);
    await expectOAuthError(await refresh(base, refresh_token, key), 400, "invalid_grant");
  });

  it("a replayed client assertion is refused", async () => {
    const assertion = await clientAssertion(base);
    const fields = { client_assertion_type: CLIENT_ASSERTION_TYPE, client_assertion: assertion };
    expect((await clientCredentials(await DpopKey.generate(), fields)).status).toBe(200);
    const replay = await expectOAuthError(await clientCredentials(await DpopKey.generate(), fields), 401, "invalid_client");
    expect(replay.error_description).toMatch(/already used/);
  });

  it("a refused assertion is audited as a failed client authentication", async () => {
    const forged = await clientCredentials(await DpopKey.generate(), assertionFields(base, { key: (await DpopKey.generate()).privateKey }));
    await expectOAuthError(forged, 401, "invalid_client");
    // Refusals are aggregated in memory and written on flush (docs/behaviour.md "Audit of refusals").
    await server.flushCounts();
    const events = await server.prisma.auditEvent.findMany({ where: { type: "client.authentication_failed", actor: FAPI_CLIENT_ID } });
    expect(events.length).toBeGreaterThan(0);
  });

  it("a browser cannot reach /authorize of a fapi2 app with its parameters in the query", async () => {
    const browser = new Browser(base);
    const res = await browser.fetch(`/authorize?client_id=${FAPI_CLIENT_ID}&response_type=code&redirect_uri=${encodeURIComponent(DEMO.callbackUrl)}&scope=aisp&state=s&code_challenge=${pkcePair().challenge}&code_challenge_method=S256`);
    expect(new URL(res.headers.get("location")!).searchParams.get("error")).toBe("invalid_request");
  });
});

describe("hostile client assertions and DPoP proofs get the RFC error, never a 5xx", () => {
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const now = () => Math.floor(Date.now() / 1000);
  const unsigned = (header: object, claims: object) => `${b64(header)}.${b64(claims)}.`;
  /** The demo key's public half as a PEM: what an HS256 forgery uses as its "secret". */
  const publicPem = () => new TextEncoder().encode(createPublicKey({ key: DEMO_FAPI_PUBLIC_JWKS.keys[0]!, format: "jwk" }).export({ type: "spki", format: "pem" }).toString());
  const assertionClaims = () => ({ iss: FAPI_CLIENT_ID, sub: FAPI_CLIENT_ID, aud: base, exp: now() + 60, jti: randomUUID() });
  const refusedAssertion = async (assertion: string) => {
    const fields = { client_assertion_type: CLIENT_ASSERTION_TYPE, client_assertion: assertion };
    await expectOAuthError(await clientCredentials(await DpopKey.generate(), fields), 401, "invalid_client");
  };

  it("assertions: forged, expired, wrong audience, alg none, HS256 with the public key, oversized", async () => {
    await refusedAssertion(await clientAssertion(base, { key: (await DpopKey.generate()).privateKey }));
    await refusedAssertion(await clientAssertion(base, { claims: { exp: now() - 1 } }));
    await refusedAssertion(await clientAssertion(base, { claims: { exp: now() + 301 } }));
    await refusedAssertion(await clientAssertion(base, { claims: { aud: "https://attacker.example" } }));
    await refusedAssertion(await clientAssertion(base, { claims: { sub: "someone-else" } }));
    await refusedAssertion(unsigned({ alg: "none" }, assertionClaims()));
    await refusedAssertion(await clientAssertion(base, { alg: "HS256", key: publicPem() }));
    await refusedAssertion(await clientAssertion(base, { claims: { pad: "x".repeat(9000) } }));
    await refusedAssertion("not.a.jwt");
  });

  it("proofs: forged, expired, replayed, wrong audience (htu), alg none, HS256, RS256, a private JWK, oversized, two proofs", async () => {
    const key = await DpopKey.generate();
    const htu = `${base}${TOKEN_ENDPOINT}`;
    const refused = async (proof: string | string[]) => {
      const headers = new Headers();
      for (const p of Array.isArray(proof) ? proof : [proof]) headers.append("DPoP", p);
      headers.set("Content-Type", "application/x-www-form-urlencoded");
      const body = new URLSearchParams({ grant_type: "client_credentials", ...(await assertionFields(base)) }).toString();
      await expectOAuthError(await send(`${base}${TOKEN_ENDPOINT}`, { method: "POST", headers, body }), 400, "invalid_dpop_proof");
    };
    await refused(await key.proof("POST", htu, undefined, { signWith: (await DpopKey.generate()).privateKey }));
    await refused(await key.proof("POST", htu, undefined, { claims: { iat: now() - 120 } }));
    const once = await key.proof("POST", htu);
    expect((await postForm(base, TOKEN_ENDPOINT, { grant_type: "client_credentials", ...(await assertionFields(base)) }, { DPoP: once })).status).toBe(200);
    await refused(once);
    await refused(await key.proof("POST", "https://attacker.example/oauth2/v1/token"));
    await refused(unsigned({ typ: "dpop+jwt", alg: "none", jwk: key.publicJwk }, { htm: "POST", htu, iat: now(), jti: randomUUID() }));
    await refused(await key.proof("POST", htu, undefined, { header: { alg: "HS256" }, signWith: publicPem() }));
    await refused(await (await DpopKey.generate("RS256")).proof("POST", htu));
    await refused(await key.proof("POST", htu, undefined, { header: { jwk: await exportJWK(key.privateKey) } }));
    await refused(await key.proof("POST", htu, undefined, { claims: { pad: "x".repeat(9000) } }));
    await refused([await key.proof("POST", htu), await key.proof("POST", htu)]);
    await refused("garbage");
  });
});
