/**
 * A hostile identity provider: a small OpenID Provider of the test's own that answers
 * Tollgate's code exchange with ID tokens crafted to be wrong (OpenID Connect Core §3.1.3.7):
 * signed with another key or not at all, for another audience or issuer, expired, with another
 * nonce, or replayed from an earlier sign-in. Each is refused: the TPP gets `access_denied`
 * with its state, never a 5xx, and the audit says why. One well-formed answer first shows the
 * harness reaches the consent page.
 */
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { authorizeParams, authorizePath, Browser, callbackParams, pkcePair } from "./support/flow.js";
import { registerBankIdp } from "./support/bank-idp.js";
import { startIssuerServer } from "./support/oauth4webapi.js";
import type { TestServer } from "./support/server.js";

const SCA = "urn:bank:acr:sca";
const client = DEMO.strictApp;

let server: TestServer;
let idp: Server;
let issuer: string;
let key: CryptoKey;
let publicJwk: JWK;
/** What the token endpoint answers next: an ID token for the nonce Tollgate sent. */
let idTokenFor: (nonce: string) => Promise<string>;
/** The nonce of the last authorization request Tollgate sent. */
let lastNonce = "";

beforeAll(async () => {
  ({ server } = await startIssuerServer());
  const pair = await generateKeyPair("PS256", { extractable: true });
  key = pair.privateKey;
  publicJwk = { ...(await exportJWK(pair.publicKey)), kid: "idp-1", alg: "PS256", use: "sig" };
  idp = createServer((req, res) => {
    const url = new URL(req.url ?? "/", issuer);
    const send = (body: unknown) => res.writeHead(200, { "Content-Type": "application/json", "Cache-Control": "no-store" }).end(JSON.stringify(body));
    if (url.pathname === "/.well-known/openid-configuration") {
      send({
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ["code"],
        subject_types_supported: ["public"],
        id_token_signing_alg_values_supported: ["PS256"],
        authorization_response_iss_parameter_supported: true,
      });
    } else if (url.pathname === "/jwks") {
      send({ keys: [publicJwk] });
    } else if (url.pathname === "/token" && req.method === "POST") {
      req.resume();
      req.on("end", () => void idTokenFor(lastNonce).then((id_token) => send({ access_token: "upstream-access-token", token_type: "Bearer", expires_in: 60, id_token })));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => idp.listen(0, "127.0.0.1", resolve));
  issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
  const provider = await registerBankIdp(server, issuer, { name: "hostile", scaAcrValues: [SCA] });
  await server.prisma.app.updateMany({ where: { name: client.name }, data: { identityProviderId: provider.id } });
});
afterAll(async () => {
  idp?.closeAllConnections();
  await new Promise((resolve) => idp?.close(resolve));
  await server?.close();
});

const now = () => Math.floor(Date.now() / 1000);

/** A well-formed ID token for `nonce`, `overrides` changing its claims, signed with `signer` (the provider's key by default). */
function idToken(nonce: string, overrides: Record<string, unknown> = {}, signer: CryptoKey = key, kid = "idp-1"): Promise<string> {
  const claims = { iss: issuer, aud: "tollgate", sub: "customer-7", nonce, iat: now(), exp: now() + 300, auth_time: now(), acr: SCA, amr: ["pwd", "otp"], ...overrides };
  return new SignJWT(claims).setProtectedHeader({ alg: "PS256", kid, typ: "JWT" }).sign(signer);
}

/** An authorization request of the strict app, answered by the provider with the next ID token. @returns Tollgate's answer to the callback, and the request's state. */
async function signIn(): Promise<{ answer: Response; state: string }> {
  const browser = new Browser(server.url);
  const params = authorizeParams(client, { code_challenge: pkcePair().challenge, code_challenge_method: "S256", prompt: "consent" });
  const start = await browser.fetch(authorizePath(params));
  expect(start.status).toBe(302);
  const upstream = new URL(start.headers.get("location")!);
  expect(`${upstream.origin}${upstream.pathname}`).toBe(`${issuer}/authorize`);
  lastNonce = upstream.searchParams.get("nonce")!;
  const callback = new URL("/federation/callback", server.url);
  callback.search = new URLSearchParams({ code: randomUUID(), state: upstream.searchParams.get("state")!, iss: issuer }).toString();
  return { answer: await browser.fetch(callback.href), state: params.state as string };
}

describe("ID tokens from a hostile identity provider (OpenID Connect Core §3.1.3.7)", () => {
  it("a well-formed one signs the PSU in (the harness works)", async () => {
    idTokenFor = (nonce) => idToken(nonce);
    const { answer } = await signIn();
    expect(answer.status).toBe(302);
    expect(answer.headers.get("location")).toMatch(/^\/consent\?interaction=/);
  });

  const forged = async (nonce: string) => idToken(nonce, {}, (await generateKeyPair("PS256")).privateKey);
  const unsigned = async (nonce: string) => {
    const encode = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
    return `${encode({ alg: "none", typ: "JWT" })}.${encode({ iss: issuer, aud: "tollgate", sub: "customer-7", nonce, iat: now(), exp: now() + 300, auth_time: now(), acr: SCA })}.`;
  };
  let earlier = "";
  const cases: [string, (nonce: string) => Promise<string>][] = [
    ["signed with another key under the provider's kid", forged],
    ["unsigned (alg none)", unsigned],
    ["for another audience", (nonce) => idToken(nonce, { aud: "another-client" })],
    ["from another issuer (mix-up)", (nonce) => idToken(nonce, { iss: "https://evil.example" })],
    ["expired", (nonce) => idToken(nonce, { iat: now() - 3600, exp: now() - 1800 })],
    ["with another nonce", () => idToken(randomUUID())],
    ["replayed from an earlier sign-in", async (nonce) => (earlier ||= await idToken(nonce, { nonce: "an-earlier-request" }))],
    ["of an authentication older than SCA_IDLE_SECONDS", (nonce) => idToken(nonce, { auth_time: now() - 3600 })],
  ];

  it.each(cases)("one %s is access_denied for the TPP, with its state; the audit says why", async (_name, craft) => {
    idTokenFor = craft;
    const { answer, state } = await signIn();
    expect(answer.status).toBe(302);
    expect(callbackParams(answer.headers.get("location"))).toMatchObject({ error: "access_denied", error_description: "the bank's sign-in could not be verified", state });
    const failed = await server.prisma.auditEvent.findFirstOrThrow({ where: { type: "signin.failed" }, orderBy: { at: "desc" } });
    expect(JSON.parse(failed.details)).toMatchObject({ identity_provider: "hostile", outcome: "refused" });
  });

  it("an SCA acr for a request needing SCA, but an auth_time before Tollgate asked, is not SCA: access_denied", async () => {
    idTokenFor = (nonce) => idToken(nonce, { auth_time: now() - 60 });
    const { answer, state } = await signIn();
    const params = callbackParams(answer.headers.get("location"));
    expect(params).toMatchObject({ error: "access_denied", state });
    expect(params.error_description).toMatch(/strong customer authentication/);
  });
});
