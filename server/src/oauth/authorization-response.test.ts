/** The authorization response in its response mode (JARM); the signed flows on a real server: server/test/jarm.test.ts. */
import { describe, expect, it } from "vitest";
import { decodeJwt } from "jose";
import { KeyBackendUnavailable } from "../keys/backend.js";
import type { JwsToSign, Keyring } from "../keys/keyring.js";
import type { ClientRecord } from "../stores/clients.js";
import type { NewEvidence } from "../stores/evidence.js";
import { InvalidAuthorizationRequest, InvalidRequest, ServiceUnavailable } from "../kernel/errors.js";
import {
  AUTHORIZATION_RESPONSE_LIFETIME_SECONDS,
  FORM_POST_PATH,
  authorizationResponse,
  errorResponseMode,
  keepEvidence,
  parseResponseMode,
  type AuthorizationResponder,
  type ResponseTarget,
} from "./authorization-response.js";

const NOW = new Date("2026-12-01T00:00:00Z");
const ISSUER = "https://auth.bank.example";
const TARGET: ResponseTarget = {
  redirectUri: "https://tpp.example/cb?x=1",
  state: "s1",
  clientId: "client-1",
  responseMode: "query.jwt",
  appId: "app-1",
  userId: null,
  psd2ConsentId: null,
  requestObject: null,
};

/**
 * A responder whose keyring records what it is asked to sign and answers an unsigned JWS of it,
 * or fails as `fail` says; `kept` records the evidence.
 */
function responder(o: { alg?: "PS256" | "ES256"; fail?: Error; client?: boolean } = {}): AuthorizationResponder & { signed: JwsToSign[]; kept: NewEvidence[] } {
  const signed: JwsToSign[] = [];
  const kept: NewEvidence[] = [];
  const encode = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
  const keyring = {
    async sign(jws: JwsToSign) {
      if (o.fail) throw o.fail;
      signed.push(jws);
      return `${encode({ alg: jws.alg, typ: jws.typ })}.${encode(jws.payload)}.sig`;
    },
  } as unknown as Keyring;
  const record = { clientId: "client-1", authorizationSignedResponseAlg: o.alg ?? "PS256" } as ClientRecord;
  const evidence = { insert: async (e: NewEvidence) => void kept.push(e) };
  return { issuer: ISSUER, keyring, clients: { byConsumerKey: async (id) => (o.client === false || id !== "client-1" ? undefined : record) }, evidence, signed, kept };
}

describe("parseResponseMode (Multiple Response Type Encoding Practices §2.1, JARM §2.3)", () => {
  it("reads query, left out as query, and jwt as query.jwt for the code flow (JARM §2.3.4)", () => {
    expect(parseResponseMode(undefined)).toBe("query");
    expect(parseResponseMode("query")).toBe("query");
    expect(parseResponseMode("query.jwt")).toBe("query.jwt");
    expect(parseResponseMode("jwt")).toBe("query.jwt");
    expect(parseResponseMode("form_post.jwt")).toBe("form_post.jwt");
  });

  it("refuses every other mode with invalid_request", () => {
    for (const mode of ["fragment.jwt", "fragment", "form_post", "JWT", "query.JWT", "form_post.JWT"]) expect(() => parseResponseMode(mode)).toThrow(InvalidRequest);
  });

  it("errorResponseMode: an error is signed only in a mode served", () => {
    expect(errorResponseMode("jwt")).toBe("query.jwt");
    expect(errorResponseMode("query.jwt")).toBe("query.jwt");
    expect(errorResponseMode("form_post.jwt")).toBe("form_post.jwt");
    for (const mode of [undefined, "query", "form_post", "fragment"]) expect(errorResponseMode(mode)).toBe("query");
  });
});

describe("authorizationResponse", () => {
  it("query mode (RFC 6749 §4.1.2, RFC 9207 §2): the parameters, state and iss, keeping the redirect URI's query; nothing signed", async () => {
    const r = responder();
    const url = new URL((await authorizationResponse(r, { ...TARGET, responseMode: "query" }, { code: "c1" }, NOW)).redirectTo);
    expect(Object.fromEntries(url.searchParams)).toEqual({ x: "1", code: "c1", state: "s1", iss: ISSUER });
    expect(r.signed).toEqual([]);
  });

  it("JARM §2.1, §2.3.1: only response, a JWT with iss, aud, exp and the code and state, in the app's algorithm", async () => {
    const r = responder({ alg: "ES256" });
    const answer = await authorizationResponse(r, TARGET, { code: "c1" }, NOW);
    const url = new URL(answer.redirectTo);
    expect([...url.searchParams.keys()]).toEqual(["x", "response"]);
    expect(answer.response).toBe(url.searchParams.get("response"));
    const exp = NOW.getTime() / 1000 + AUTHORIZATION_RESPONSE_LIFETIME_SECONDS;
    expect(decodeJwt(url.searchParams.get("response")!)).toEqual({ iss: ISSUER, aud: "client-1", exp, code: "c1", state: "s1" });
    expect(r.signed[0]).toMatchObject({ alg: "ES256", typ: "JWT", expiresAt: new Date(exp * 1000) });
    expect(AUTHORIZATION_RESPONSE_LIFETIME_SECONDS).toBeLessThanOrEqual(600);
  });

  it("JARM §2.3.3 form_post.jwt: the same JWT, to post to the redirect URI from this server's form-post page", async () => {
    const answer = await authorizationResponse(responder(), { ...TARGET, responseMode: "form_post.jwt" }, { code: "c1" }, NOW);
    expect(answer).toEqual({ redirectTo: FORM_POST_PATH, response: answer.response, formPost: { action: TARGET.redirectUri, response: answer.response } });
    expect(decodeJwt(answer.response!)).toMatchObject({ aud: "client-1", code: "c1", state: "s1" });
  });

  it("JARM §2.1: an error carries error, error_description and state; no state when the request had none", async () => {
    const url = new URL((await authorizationResponse(responder(), { ...TARGET, state: null }, { error: "access_denied", error_description: "no" }, NOW)).redirectTo);
    const claims = decodeJwt(url.searchParams.get("response")!);
    expect(claims).toMatchObject({ error: "access_denied", error_description: "no" });
    expect(claims).not.toHaveProperty("state");
  });

  it("no key to sign with: 503 temporarily_unavailable, never an unsigned response", async () => {
    const err = await authorizationResponse(responder({ fail: new KeyBackendUnavailable("HSM away") }), TARGET, { code: "c1" }, NOW).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceUnavailable);
    expect((err as ServiceUnavailable).status).toBe(503);
  });

  it("a client gone since the request, or a sign-in that kept no client_id, gets the error page (unauthorized_client)", async () => {
    await expect(authorizationResponse(responder({ client: false }), TARGET, { code: "c1" }, NOW)).rejects.toThrow(InvalidAuthorizationRequest);
    await expect(authorizationResponse(responder(), { ...TARGET, clientId: null }, { code: "c1" }, NOW)).rejects.toThrow(InvalidAuthorizationRequest);
  });
});

describe("keepEvidence (FAPI 2.0 Message Signing: non-repudiation)", () => {
  const signedRequest = "eyJhbGciOiJFUzI1NiJ9.eyJzY29wZSI6ImFpc3AifQ.sig";
  const answered = { ...TARGET, userId: "user-1", psd2ConsentId: "consent-1" };

  it("keeps the signed request, the signed answer and the outcome of a PSU's answer, with the PSD2 consent", async () => {
    const r = responder();
    const answer = await authorizationResponse(r, { ...answered, requestObject: signedRequest }, { code: "c1" }, NOW);
    await keepEvidence(r, { ...answered, requestObject: signedRequest }, answer, { code: "c1" }, NOW);
    expect(r.kept).toEqual([
      { appId: "app-1", clientId: "client-1", userId: "user-1", psd2ConsentId: "consent-1", requestObject: signedRequest, authorizationResponse: answer.response, outcome: "code", createdAt: NOW },
    ]);
  });

  it("keeps an error's outcome, and a signed request answered unsigned (query mode)", async () => {
    const r = responder();
    const target = { ...answered, responseMode: "query" as const, requestObject: signedRequest };
    const params = { error: "access_denied", error_description: "the user denied the request" };
    await keepEvidence(r, target, await authorizationResponse(r, target, params, NOW), params, NOW);
    expect(r.kept).toMatchObject([{ requestObject: signedRequest, authorizationResponse: null, outcome: "access_denied" }]);
  });

  it("keeps nothing when nothing was signed, or before a PSU signed in", async () => {
    const r = responder();
    const plain = { ...answered, responseMode: "query" as const };
    await keepEvidence(r, plain, await authorizationResponse(r, plain, { code: "c1" }, NOW), { code: "c1" }, NOW);
    const anonymous = { ...TARGET, requestObject: signedRequest };
    await keepEvidence(r, anonymous, await authorizationResponse(r, anonymous, { code: "c1" }, NOW), { code: "c1" }, NOW);
    expect(r.kept).toEqual([]);
  });
});
