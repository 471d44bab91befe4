/**
 * FAPI 2.0 over the mutual-TLS listener (the OIDF FAPI 2.0 plan's private_key_jwt + DPoP,
 * private_key_jwt + mTLS and mTLS + DPoP variants, ported): a DPoP proof names the URL the
 * request arrived on, the `mtls_endpoint_aliases` URL on the TLS listener (RFC 9449 §4.3,
 * RFC 8705 §5); a token may be bound to a DPoP key and a client certificate at once; a fapi2
 * client sending no sender constraint is refused with `invalid_request`; and the listener
 * negotiates TLS 1.2 only with RFC 9325 §4.2's recommended cipher suites (FAPI 2.0 SP §5.2.1).
 * Real server, real TLS on 127.0.0.1, certificates from the test PKI (support/pki.ts).
 */
import { connect as tlsConnect } from "node:tls";
import { Agent, request, type Dispatcher } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { assertionFields, DpopKey, fapiCode, PAR_ENDPOINT, postForm, pushedParams } from "./support/fapi.js";
import { expectOAuthError, FORM, INTROSPECTION_ENDPOINT, basic, pkcePair, type Json } from "./support/flow.js";
import { freePort } from "./support/free-port.js";
import { startIssuerServer } from "./support/oauth4webapi.js";
import { addOpenDataApi, OPEN_DATA } from "./support/open-data.js";
import { pemFolder, privateKeyPem, testPki, tlsListenerSettings, type PemFolder, type TestCertificate, type TestPki } from "./support/pki.js";
import type { TestServer } from "./support/server.js";

let pki: TestPki;
let folder: PemFolder | undefined;
let server: TestServer;
/** BASE_URL (and the issuer): the plain listener. */
let base: string;
/** TLS_BASE_URL: the mutual-TLS listener, its endpoints the metadata's mtls_endpoint_aliases. */
let tlsBase: string;
let tlsPort: number;
let serverCa: string[];
const agents: Agent[] = [];

/** A TLS client trusting the listener, presenting `client` (with its intermediate) or no certificate. */
async function tlsClient(client?: TestCertificate): Promise<Agent> {
  const identity = client ? { cert: client.pem + pki.intermediate.pem, key: await privateKeyPem(client) } : {};
  const agent = new Agent({ connect: { ca: serverCa, ...identity } });
  agents.push(agent);
  return agent;
}

interface TlsAnswer {
  status: number;
  body: Json;
  headers: Record<string, string | string[] | undefined>;
}

async function tlsSend(dispatcher: Dispatcher, url: string, init: { method?: string; headers?: Record<string, string>; form?: Record<string, string> } = {}): Promise<TlsAnswer> {
  const body = init.form && new URLSearchParams(init.form).toString();
  const headers = { ...(init.form ? { "content-type": FORM } : {}), ...init.headers };
  const res = await request(url, { dispatcher, method: (init.method ?? (init.form ? "POST" : "GET")) as Dispatcher.HttpMethod, headers, body });
  const text = await res.body.text();
  expect(res.statusCode, text).toBeLessThan(500);
  let parsed: Json = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.statusCode, body: parsed, headers: res.headers };
}

/** Introspects `token` as the strict demo app (a resource server). */
async function introspect(token: string): Promise<Json> {
  const res = await fetch(`${base}${INTROSPECTION_ENDPOINT}`, { method: "POST", headers: { authorization: basic(DEMO.strictApp.consumerKey, DEMO.strictApp.consumerSecret), "content-type": FORM }, body: `token=${token}` });
  return res.json();
}

beforeAll(async () => {
  pki = await testPki();
  folder = pemFolder("tollgate-fapi2-mtls-");
  serverCa = [pki.root.pem, pki.intermediate.pem];
  tlsPort = await freePort();
  tlsBase = `https://127.0.0.1:${tlsPort}`;
  ({ server } = await startIssuerServer({
    TLS_PORT: String(tlsPort),
    TLS_BASE_URL: tlsBase,
    ...(await tlsListenerSettings(pki, folder)),
  }));
  base = server.url;
  await addOpenDataApi(server);
});

afterAll(async () => {
  await Promise.all(agents.map((a) => a.close()));
  await server?.close();
  folder?.remove();
});

describe("DPoP on the mutual-TLS listener: htu is the URL the request arrived on (RFC 9449 §4.3, RFC 8705 §5)", () => {
  it("the metadata's mtls_endpoint_aliases are the TLS listener's URLs", async () => {
    const meta = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Json;
    expect(meta.mtls_endpoint_aliases.pushed_authorization_request_endpoint).toBe(`${tlsBase}${PAR_ENDPOINT}`);
    expect(meta.mtls_endpoint_aliases.token_endpoint).toBe(`${tlsBase}/oauth2/v1/token`);
  });

  it("PAR at the alias takes a proof naming the alias, and refuses one naming the BASE_URL form", async () => {
    const client = await tlsClient();
    const key = await DpopKey.generate();
    const push = async (htu: string) =>
      tlsSend(client, `${tlsBase}${PAR_ENDPOINT}`, { form: { ...pushedParams(pkcePair().challenge), ...(await assertionFields(base)) } as Record<string, string>, headers: { DPoP: await key.proof("POST", htu) } });
    const accepted = await push(`${tlsBase}${PAR_ENDPOINT}`);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    const refused = await push(`${base}${PAR_ENDPOINT}`);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("invalid_dpop_proof");
    expect(refused.body.error_description).toContain(`${tlsBase}${PAR_ENDPOINT}`);
  });

  it("the plain listener still wants its own URL: a proof naming the alias is refused there", async () => {
    const key = await DpopKey.generate();
    const answer = await postForm(base, PAR_ENDPOINT, { ...pushedParams(pkcePair().challenge), ...(await assertionFields(base)) }, { DPoP: await key.proof("POST", `${tlsBase}${PAR_ENDPOINT}`) });
    await expectOAuthError(answer, 400, "invalid_dpop_proof");
  });

  it("private_key_jwt + DPoP through the aliases: token at the alias, then the gateway over TLS, each proof naming the TLS URL", async () => {
    const client = await tlsClient();
    const key = await DpopKey.generate();
    const { code, verifier } = await fapiCode(base);
    const form = { grant_type: "authorization_code", code, redirect_uri: DEMO.callbackUrl, code_verifier: verifier, ...(await assertionFields(base)) };
    const token = await tlsSend(client, `${tlsBase}/oauth2/v1/token`, { form, headers: { DPoP: await key.proof("POST", `${tlsBase}/oauth2/v1/token`) } });
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    expect(token.body.token_type).toBe("DPoP");
    const accessToken = token.body.access_token as string;
    const call = async (htu: string) => tlsSend(client, `${tlsBase}/accounts/`, { headers: { Authorization: `DPoP ${accessToken}`, DPoP: await key.proof("GET", htu, accessToken) } });
    expect((await call(`${tlsBase}/accounts/`)).status).toBe(200);
    const refused = await call(`${base}/accounts/`);
    expect(refused.status).toBe(401);
    expect(String(refused.headers["www-authenticate"])).toMatch(/error="invalid_dpop_proof"/);
  });
});

describe("a token bound to both a DPoP key and a client certificate (RFC 9449 §6, RFC 8705 §3)", () => {
  it("carries cnf.jkt and cnf.x5t#S256, and the gateway then wants the proof and the certificate", async () => {
    const client = await tlsClient(pki.aisp);
    const key = await DpopKey.generate();
    const form = { grant_type: "client_credentials", scope: "aisp", ...(await assertionFields(base)) };
    const token = await tlsSend(client, `${tlsBase}/oauth2/v1/token`, { form, headers: { DPoP: await key.proof("POST", `${tlsBase}/oauth2/v1/token`) } });
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    const accessToken = token.body.access_token as string;
    const introspected = await introspect(accessToken);
    expect(introspected.cnf).toEqual({ jkt: key.jkt, "x5t#S256": expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    const call = async (dispatcher: Dispatcher) =>
      tlsSend(dispatcher, `${tlsBase}${OPEN_DATA}`, { headers: { Authorization: `DPoP ${accessToken}`, DPoP: await key.proof("GET", `${tlsBase}${OPEN_DATA}`, accessToken) } });
    expect((await call(client)).status).toBe(200);
    expect((await call(await tlsClient())).status).toBe(401);
  });
});

describe("a fapi2 client without any sender constraint", () => {
  it("sending neither a certificate nor a DPoP proof gets invalid_request, on either listener", async () => {
    const form = async () => ({ grant_type: "client_credentials", scope: "aisp", ...(await assertionFields(base)) });
    const overTls = await tlsSend(await tlsClient(), `${tlsBase}/oauth2/v1/token`, { form: await form() });
    expect(overTls.status).toBe(400);
    expect(overTls.body.error).toBe("invalid_request");
    await expectOAuthError(await postForm(base, "/oauth2/v1/token", await form()), 400, "invalid_request");
  });

  it("a certificate alone is a sender constraint: the token is certificate-bound (private_key_jwt + mTLS)", async () => {
    const form = { grant_type: "client_credentials", scope: "aisp", ...(await assertionFields(base)) };
    const token = await tlsSend(await tlsClient(pki.aisp), `${tlsBase}/oauth2/v1/token`, { form });
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    expect((await introspect(token.body.access_token)).cnf).toEqual({ "x5t#S256": expect.any(String) });
  });
});

describe("the TLS listener's cipher suites (FAPI 2.0 SP §5.2.1, RFC 9325 §4.2)", () => {
  /** The cipher negotiated by a TLS handshake limited to `version` and `ciphers`, or the handshake's error. */
  function handshake(version: "TLSv1.2" | "TLSv1.3", ciphers?: string): Promise<{ cipher: string; version: string } | { error: string }> {
    return new Promise((resolve) => {
      const socket = tlsConnect({ host: "127.0.0.1", port: tlsPort, ca: serverCa, minVersion: version, maxVersion: version, ...(ciphers ? { ciphers } : {}) });
      socket.once("secureConnect", () => {
        resolve({ cipher: socket.getCipher().standardName, version: socket.getProtocol() ?? "" });
        socket.destroy();
      });
      socket.once("error", (err) => resolve({ error: err.message }));
    });
  }

  it.each(["ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-ECDSA-AES256-GCM-SHA384"])("negotiates the recommended %s over TLS 1.2", async (cipher) => {
    const result = await handshake("TLSv1.2", cipher);
    expect(result).toMatchObject({ version: "TLSv1.2" });
  });

  it.each([
    ["CBC", "ECDHE-ECDSA-AES128-SHA"],
    ["CBC with SHA-256", "ECDHE-ECDSA-AES128-SHA256"],
    ["CBC with SHA-384", "ECDHE-ECDSA-AES256-SHA384"],
    ["CCM", "ECDHE-ECDSA-AES128-CCM"],
    ["CCM_8", "ECDHE-ECDSA-AES256-CCM8"],
    ["ARIA", "ECDHE-ECDSA-ARIA128-GCM-SHA256"],
  ])("refuses a TLS 1.2 handshake offering only %s (%s)", async (_what, cipher) => {
    expect(await handshake("TLSv1.2", cipher)).toHaveProperty("error");
  });

  it("still negotiates TLS 1.3 with its default suites", async () => {
    expect(await handshake("TLSv1.3")).toMatchObject({ version: "TLSv1.3", cipher: expect.stringMatching(/^TLS_(AES_(128|256)_GCM|CHACHA20_POLY1305)_SHA(256|384)$/) });
  });
});
