/**
 * Request objects (RFC 9101 §4, §6; FAPI 2.0 Message Signing §5.3.1): what a signed
 * authorization request must be to be used, and what it is read as.
 */
import { randomUUID } from "node:crypto";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { memoryReplays } from "../../test/support/memory-stores.js";
import type { AssertionKeys } from "./client-assertion.js";
import { InvalidRequestObject, MAX_REQUEST_OBJECT_LENGTH, MAX_REQUEST_OBJECT_LIFETIME_SECONDS, requestObjectParameters, type RequestObjectContext } from "./request-object.js";

const NOW = new Date("2026-11-29T12:00:00Z");
const NOW_SECONDS = NOW.getTime() / 1000;
const CLIENT_ID = "tpp-1";
const ISSUER = "https://auth.bank.example";

let key: { privateKey: CryptoKey; jwk: JWK };
let stranger: { privateKey: CryptoKey; jwk: JWK };
beforeAll(async () => {
  const make = async () => {
    const { privateKey, publicKey } = await generateKeyPair("PS256", { extractable: true });
    return { privateKey, jwk: { ...(await exportJWK(publicKey)), kid: "k1", alg: "PS256" } };
  };
  [key, stranger] = await Promise.all([make(), make()]);
});

const keys = (): AssertionKeys => ({ jwks: { keys: [key.jwk] }, jwksUri: null, addresses: "internal" });
const context = (o: Partial<RequestObjectContext> = {}): RequestObjectContext => ({ clientId: CLIENT_ID, keys: keys(), issuer: ISSUER, replays: memoryReplays(), now: NOW, ...o });

/** A request object of CLIENT_ID for ISSUER, valid from NOW for 5 minutes; `claims` override (undefined removes one). */
function requestObject(claims: Record<string, unknown> = {}, signWith = key.privateKey, header: Record<string, unknown> = {}): Promise<string> {
  const all: Record<string, unknown> = {
    iss: CLIENT_ID,
    aud: ISSUER,
    nbf: NOW_SECONDS,
    exp: NOW_SECONDS + 300,
    jti: randomUUID(),
    client_id: CLIENT_ID,
    response_type: "code",
    redirect_uri: "https://tpp.example/cb",
    scope: "openid aisp",
    max_age: 300,
    authorization_details: [{ type: "account_information" }],
    ...claims,
  };
  for (const k of Object.keys(all)) if (all[k] === undefined) delete all[k];
  return new SignJWT(all).setProtectedHeader({ alg: "PS256", kid: "k1", typ: "oauth-authz-req+jwt", ...header }).sign(signWith);
}

/** The description of the InvalidRequestObject that `jwt` gets. */
async function refusal(jwt: string | Promise<string>, ctx = context()): Promise<string> {
  const error = await requestObjectParameters(await jwt, ctx).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(InvalidRequestObject);
  expect((error as InvalidRequestObject).error).toBe("invalid_request_object");
  return (error as Error).message;
}

describe("requestObjectParameters (RFC 9101)", () => {
  it("§4: reads the parameters, objects and arrays as their JSON text and numbers as decimals, the JWT's own claims left out", async () => {
    expect({ ...(await requestObjectParameters(await requestObject(), context())) }).toEqual({
      client_id: CLIENT_ID,
      response_type: "code",
      redirect_uri: "https://tpp.example/cb",
      scope: "openid aisp",
      max_age: "300",
      authorization_details: '[{"type":"account_information"}]',
    });
  });

  it("§6.2: refuses an object that is unsigned, signed with alg none or HS256 over the public key, or by another key", async () => {
    const body = Buffer.from(JSON.stringify({ iss: CLIENT_ID, aud: ISSUER, nbf: NOW_SECONDS, exp: NOW_SECONDS + 60, jti: "x" })).toString("base64url");
    const none = `${Buffer.from(JSON.stringify({ alg: "none" })).toString("base64url")}.${body}.`;
    expect(await refusal(none)).toMatch(/alg must be one of/);
    const hmac = await new SignJWT({ iss: CLIENT_ID, aud: ISSUER, nbf: NOW_SECONDS, exp: NOW_SECONDS + 60, jti: "y" })
      .setProtectedHeader({ alg: "HS256", kid: "k1" })
      .sign(new TextEncoder().encode(JSON.stringify(key.jwk)));
    expect(await refusal(hmac)).toMatch(/alg must be one of/);
    expect(await refusal(requestObject({}, stranger.privateKey))).toMatch(/signature does not verify/);
    expect(await refusal("not a JWT")).toMatch(/not a JWT/);
  });

  it("§4, FAPI 2.0 Message Signing §5.3.1: refuses another aud or iss, an expired object, one without nbf, and one valid for more than an hour", async () => {
    expect(await refusal(requestObject({ aud: "https://other.example" }))).toMatch(/aud must be/);
    expect(await refusal(requestObject({ iss: "tpp-2" }))).toMatch(/iss must be the client_id/);
    expect(await refusal(requestObject({ nbf: NOW_SECONDS - 120, exp: NOW_SECONDS - 60 }))).toMatch(/expired/);
    expect(await refusal(requestObject({ nbf: undefined }))).toMatch(/needs exp and nbf/);
    expect(await refusal(requestObject({ nbf: NOW_SECONDS - 10, exp: NOW_SECONDS - 10 + MAX_REQUEST_OBJECT_LIFETIME_SECONDS + 1 }))).toMatch(/at most 3600 seconds after its nbf/);
    expect(await refusal(requestObject({ client_id: "tpp-2" }))).toMatch(/client_id must be the client's/);
    expect(await refusal(requestObject({ request_uri: "urn:x" }))).toMatch(/may not hold request or request_uri/);
    expect(await refusal(requestObject({ scope: true }))).toMatch(/scope must be a string/);
  });

  it("§4: an aud array holding the issuer will do", async () => {
    expect((await requestObjectParameters(await requestObject({ aud: [ISSUER, "https://other.example"] }), context())).scope).toBe("openid aisp");
  });

  it("takes a jti once: a replay is refused, and a refused object uses nothing up", async () => {
    const ctx = context();
    const jti = randomUUID();
    expect(await refusal(requestObject({ jti, aud: "https://other.example" }), ctx)).toMatch(/aud/);
    const jwt = await requestObject({ jti });
    await requestObjectParameters(jwt, ctx);
    expect(await refusal(jwt, ctx)).toMatch(/already used/);
    expect(await refusal(requestObject({ jti: undefined }), ctx)).toMatch(/needs a jti/);
  });

  it("refuses an object longer than the limit before reading it", async () => {
    expect(await refusal(requestObject({ state: "s".repeat(MAX_REQUEST_OBJECT_LENGTH) }))).toMatch(/longer than/);
  });
});
