/**
 * Mutual-TLS client authentication and certificate-bound tokens (RFC 8705), with eIDAS
 * certificates (PSD2 RTS Art. 34, ETSI TS 119 495), against the running server: over its real
 * TLS listener on 127.0.0.1 with client certificates (undici agents), and behind a
 * TLS-terminating proxy whose header is trusted only from the proxy's address (127.0.0.2,
 * the same loopback). The certificates come from the test PKI (support/pki.ts).
 */
import { connect as netConnect } from "node:net";
import { exportJWK } from "jose";
import { Agent, request, type Dispatcher } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signDemoSoftwareStatement } from "../src/demo/directory.js";
import { DEMO } from "../src/demo/seed.js";
import { pemFolder, privateKeyPem, TEST_TPP, testPki, tlsListenerSettings, type PemFolder, type TestCertificate, type TestPki } from "./support/pki.js";
import { FORM, type Json } from "./support/flow.js";
import { adminBearer, firstError, type GraphQLClient } from "./support/graphql.js";
import { addOpenDataApi, OPEN_DATA } from "./support/open-data.js";
import { startTestServer, type TestServer } from "./support/server.js";

const PROXY_HEADER = "x-ssl-client-cert";
/** The address the tests' proxy connects from: any 127/8 address reaches the loopback listener. */
const PROXY_ADDRESS = "127.0.0.2";

let pki: TestPki;
let folder: PemFolder | undefined;
let server: TestServer;
let admin: GraphQLClient;
/** The TLS listener's CA bundle, for the clients to trust it. */
let serverCa: string[];
const agents: Agent[] = [];

/** A TLS client presenting `client` (with its issuing intermediate, as a QWAC holder sends its chain), or none. */
async function tlsClient(client?: TestCertificate): Promise<Agent> {
  const identity = client ? { cert: client === pki.selfSigned ? client.pem : client.pem + pki.intermediate.pem, key: await privateKeyPem(client) } : {};
  const agent = new Agent({ connect: { ca: serverCa, ...identity } });
  agents.push(agent);
  return agent;
}

/** A plain HTTP client connecting from `localAddress` (undici's own connector does not take one). */
function httpClient(localAddress: string): Agent {
  const agent = new Agent({
    connect: (options, callback) => {
      const socket = netConnect({ host: options.hostname, port: Number(options.port), localAddress });
      socket.once("connect", () => callback(null, socket)).once("error", (err) => callback(err, null));
    },
  });
  agents.push(agent);
  return agent;
}

interface Answer {
  status: number;
  body: Json;
  headers: Record<string, string | string[] | undefined>;
}

async function send(dispatcher: Dispatcher, url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const res = await request(url, { dispatcher, method: (init.method ?? "GET") as Dispatcher.HttpMethod, headers: init.headers, body: init.body });
  const text = await res.body.text();
  let body: Json = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: res.statusCode, body, headers: res.headers };
}

/** A client credentials token request authenticated by `client_id` and the connection's certificate (RFC 8705 §2). */
function mtlsToken(dispatcher: Dispatcher, base: string, clientId: string, extra: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<Answer> {
  return send(dispatcher, `${base}/oauth2/v1/token`, {
    method: "POST",
    headers: { "content-type": FORM, ...headers },
    body: new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, ...extra }).toString(),
  });
}

/** Introspects `token` as a resource server (RFC 7662). */
async function introspect(token: string): Promise<Json> {
  const basic = Buffer.from(`${DEMO.strictApp.consumerKey}:${DEMO.strictApp.consumerSecret}`).toString("base64");
  const res = await fetch(`${server.url}/oauth2/v1/introspect`, { method: "POST", headers: { authorization: `Basic ${basic}`, "content-type": FORM }, body: `token=${token}` });
  return (await res.json()) as Json;
}

const SET_SETTINGS = "mutation($id: ID!, $input: AppSettingsInput!) { setAppSettings(appId: $id, input: $input) { tokenEndpointAuthMethods tlsClientAuth { parameter value } } }";

/** Creates an app of the demo developer approved for `products`; @returns its id and consumer key. */
async function createApp(name: string, products: string[]): Promise<{ id: string; clientId: string }> {
  const { developers, apiProducts } = await admin.data("{ developers(first: 1) { nodes { id } } apiProducts { id name } }");
  const ids = products.map((p) => apiProducts.find((a: Json) => a.name === p).id);
  const { createApp: created } = await admin.data("mutation($input: CreateAppInput!) { createApp(input: $input) { app { id } consumerKey } }", {
    input: { developerId: developers.nodes[0].id, name, apiProductIds: ids, callbackUrls: [DEMO.callbackUrl] },
  });
  return { id: created.app.id, clientId: created.consumerKey };
}

let tpp: { id: string; clientId: string };
let small: { id: string; clientId: string };

beforeAll(async () => {
  pki = await testPki();
  folder = pemFolder("tollgate-mtls-");
  const { file } = folder;
  serverCa = [pki.root.pem, pki.intermediate.pem];
  server = await startTestServer({
    TLS_PORT: "0",
    // The client CAs: the QTSP's root (the trust anchor) and its issuing CA, for proxies that forward only the leaf.
    ...(await tlsListenerSettings(pki, folder)),
    TLS_CLIENT_CRLS: [file("intermediate.crl", pki.crl.pem), file("root.crl", pki.rootCrl.pem)].join(","),
    TLS_CLIENT_CERT_HEADER: PROXY_HEADER,
    TLS_CLIENT_CERT_PROXIES: PROXY_ADDRESS,
  });
  admin = await adminBearer(server.url);
  // Where the TPP's client credentials tokens may call (account data needs the PSU).
  await addOpenDataApi(server);
  // The TPP's app has both PSD2 products; its certificate's roles allow account information only.
  tpp = await createApp("Example AISP (mTLS)", ["PSD2-AISP-v1", "PSD2-PISP-v1"]);
  await admin.data(SET_SETTINGS, {
    id: tpp.id,
    input: { tokenEndpointAuthMethods: ["tls_client_auth"], tlsClientAuth: { parameter: "tls_client_auth_subject_dn", value: TEST_TPP.aisp.subjectDn } },
  });
  small = await createApp("Small TPP (self-signed)", ["PSD2-AISP-v1"]);
  const jwk = await exportJWK(pki.selfSigned.keys.publicKey);
  await admin.data("mutation($id: ID!, $jwks: String) { setAppKeys(appId: $id, jwks: $jwks) { id } }", { id: small.id, jwks: JSON.stringify({ keys: [{ ...jwk, alg: "ES256", use: "sig" }] }) });
  await admin.data(SET_SETTINGS, { id: small.id, input: { tokenEndpointAuthMethods: ["self_signed_tls_client_auth"] } });
});

afterAll(async () => {
  await Promise.all(agents.map((a) => a.close()));
  await server?.close();
  folder?.remove();
});

describe("metadata (RFC 8705 §3.3, §5)", () => {
  it("advertises the mutual-TLS methods, certificate-bound tokens and the TLS listener's endpoint aliases", async () => {
    const meta = (await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json()) as Json;
    expect(meta.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(["tls_client_auth", "self_signed_tls_client_auth", "private_key_jwt"]));
    expect(meta.tls_client_certificate_bound_access_tokens).toBe(true);
    expect(Object.keys(meta.mtls_endpoint_aliases).sort()).toEqual(["introspection_endpoint", "pushed_authorization_request_endpoint", "registration_endpoint", "revocation_endpoint", "token_endpoint"]);
    expect(meta.mtls_endpoint_aliases.token_endpoint).toMatch(/^https:\/\/localhost:\d+\/oauth2\/v1\/token$/);
  });
});

describe("tls_client_auth with an eIDAS certificate over the TLS listener", () => {
  it("issues a token bound to the certificate, with only the products its PSD2 roles allow", async () => {
    const client = await tlsClient(pki.aisp);
    const answer = await mtlsToken(client, server.tlsUrl!, tpp.clientId);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    // PSP_AI → PSD2-AISP-v1 only, though the credential also has PSD2-PISP-v1.
    expect(answer.body.api_product_list_json).toEqual(["PSD2-AISP-v1"]);
    const introspected = await introspect(answer.body.access_token);
    expect(introspected).toMatchObject({ active: true, client_id: tpp.clientId, token_type: "Bearer", cnf: { "x5t#S256": await thumbprint(pki.aisp) } });

    // A scope of a product the roles do not allow: invalid_scope.
    const refused = await mtlsToken(client, server.tlsUrl!, tpp.clientId, { scope: "pisp" });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("invalid_scope");
  });

  it("the bound token works at the gateway only with the same certificate (RFC 8705 §3)", async () => {
    const client = await tlsClient(pki.aisp);
    const token = (await mtlsToken(client, server.tlsUrl!, tpp.clientId)).body.access_token;
    const call = (dispatcher: Dispatcher, base: string) => send(dispatcher, `${base}${OPEN_DATA}`, { headers: { authorization: `Bearer ${token}` } });
    expect((await call(client, server.tlsUrl!)).status).toBe(200);
    for (const [what, answer] of [
      ["plain HTTP, no certificate", await call(httpClient("127.0.0.1"), server.url)],
      ["TLS without a certificate", await call(await tlsClient(), server.tlsUrl!)],
      ["TLS with another trusted certificate", await call(await tlsClient(pki.plain), server.tlsUrl!)],
    ] as const) {
      expect(answer.status, what).toBe(401);
      expect(String(answer.headers["www-authenticate"]), what).toMatch(/error="invalid_token"/);
    }
  });

  it.each([
    ["an expired certificate", "expired", /expired/],
    ["a revoked certificate (the CA's CRL lists it)", "revoked", /revoked/],
    ["a certificate of an unknown CA", "unknownLeaf", /untrusted_issuer/],
    ["a trusted certificate with another subject", "plain", /does not carry the registered tls_client_auth_subject_dn/],
    // As behind the proxy (certificates.test.ts): the certificate's own purpose and PSD2 identity.
    ["a certificate whose extendedKeyUsage is serverAuth only", "serverAuthOnly", /not_for_client_auth/],
    ["a QWAC whose organizationIdentifier names another NCA than its PSD2 statement", "ncaMismatch", /psd2_identity_mismatch/],
  ] as const)("refuses %s with 401 invalid_client", async (_what, which, reason) => {
    const answer = await mtlsToken(await tlsClient(pki[which]), server.tlsUrl!, tpp.clientId);
    expect(answer.status).toBe(401);
    expect(answer.body.error).toBe("invalid_client");
    expect(answer.body.error_description).toMatch(reason);
  });

  it("without a certificate, client_id alone is no authentication", async () => {
    const answer = await mtlsToken(await tlsClient(), server.tlsUrl!, tpp.clientId);
    expect(answer.status).toBe(401);
    expect(answer.body.error).toBe("invalid_client");
  });
});

describe("a fapi2 app (FAPI 2.0 Security Profile §5.3.2.1, §5.3.2.2)", () => {
  it("may authenticate with tls_client_auth instead of private_key_jwt; its tokens are bound to the certificate instead of a DPoP key", async () => {
    const app = await createApp("FAPI TPP (mTLS)", ["PSD2-AISP-v1"]);
    const { setAppSettings } = await admin.data(
      "mutation($id: ID!, $input: AppSettingsInput!) { setAppSettings(appId: $id, input: $input) { securityProfile tokenEndpointAuthMethods tokenResponseProfile requirePkce } }",
      { id: app.id, input: { securityProfile: "fapi2", tokenEndpointAuthMethods: ["tls_client_auth"], tlsClientAuth: { parameter: "tls_client_auth_san_uri", value: TEST_TPP.aisp.uri } } },
    );
    expect(setAppSettings).toEqual({ securityProfile: "fapi2", tokenEndpointAuthMethods: ["tls_client_auth"], tokenResponseProfile: "rfc6749", requirePkce: true });
    const answer = await mtlsToken(await tlsClient(pki.aisp), server.tlsUrl!, app.clientId);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.token_type).toBe("Bearer");
    expect((await introspect(answer.body.access_token)).cnf).toEqual({ "x5t#S256": await thumbprint(pki.aisp) });
    // A client secret is no longer enough, whatever the app once had.
    const refused = await admin.post(SET_SETTINGS, { id: app.id, input: { tokenEndpointAuthMethods: ["client_secret_basic"] } });
    expect(firstError(refused).message).toMatch(/a fapi2 app authenticates with private_key_jwt or mutual TLS only/);
  });
});

describe("self_signed_tls_client_auth (RFC 8705 §2.2)", () => {
  it("authenticates with the registered key's self-signed certificate, and binds the token to it", async () => {
    const answer = await mtlsToken(await tlsClient(pki.selfSigned), server.tlsUrl!, small.clientId);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect((await introspect(answer.body.access_token)).cnf).toEqual({ "x5t#S256": await thumbprint(pki.selfSigned) });
    const other = await mtlsToken(await tlsClient(pki.plain), server.tlsUrl!, small.clientId);
    expect(other.status).toBe(401);
  });
});

describe("behind a TLS-terminating proxy", () => {
  const header = () => ({ [PROXY_HEADER]: encodeURIComponent(pki.aisp.pem) });

  it("takes the certificate from the proxy's header, from the proxy's address only", async () => {
    const viaProxy = await mtlsToken(httpClient(PROXY_ADDRESS), server.url, tpp.clientId, {}, header());
    expect(viaProxy.status, JSON.stringify(viaProxy.body)).toBe(200);
    expect((await introspect(viaProxy.body.access_token)).cnf).toEqual({ "x5t#S256": await thumbprint(pki.aisp) });
    // The gateway takes it the same way.
    const call = await send(httpClient(PROXY_ADDRESS), `${server.url}${OPEN_DATA}`, { headers: { authorization: `Bearer ${viaProxy.body.access_token}`, ...header() } });
    expect(call.status).toBe(200);
  });

  it("refuses the same header forged from another address", async () => {
    const forged = await mtlsToken(httpClient("127.0.0.1"), server.url, tpp.clientId, {}, header());
    expect(forged.status).toBe(400);
    expect(forged.body).toMatchObject({ error: "invalid_request" });
    expect(forged.body.error_description).toMatch(/accepted only from the configured TLS-terminating proxies/);
    const garbage = await mtlsToken(httpClient(PROXY_ADDRESS), server.url, tpp.clientId, {}, { [PROXY_HEADER]: "not%20a%20certificate" });
    expect(garbage.status).toBe(400);
    expect(garbage.body.error).toBe("invalid_request");
  });
});

describe("dynamic client registration over mutual TLS (RFC 7591, PSD2 RTS Art. 34)", () => {
  const registration = (statement: string) =>
    JSON.stringify({
      software_statement: statement,
      token_endpoint_auth_method: "tls_client_auth",
      tls_client_auth_subject_dn: TEST_TPP.aisp.subjectDn,
      grant_types: ["client_credentials"],
    });

  it("needs a trusted certificate, whose PSD2 roles bound the registration's; the client then authenticates with it", async () => {
    const statement = await signDemoSoftwareStatement();
    const headers = { "content-type": "application/json" };
    const plain = await send(httpClient("127.0.0.1"), `${server.url}/oauth2/v1/register`, { method: "POST", headers, body: registration(statement) });
    expect(plain.status).toBe(401);
    expect(plain.body.error).toBe("invalid_client");
    const untrusted = await send(await tlsClient(pki.unknownLeaf), `${server.tlsUrl}/oauth2/v1/register`, { method: "POST", headers, body: registration(statement) });
    expect(untrusted.status).toBe(401);
    expect(untrusted.body.error_description).toMatch(/untrusted_issuer/);

    const client = await tlsClient(pki.aisp);
    const registered = await send(client, `${server.tlsUrl}/oauth2/v1/register`, { method: "POST", headers, body: registration(statement) });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    expect(registered.body).toMatchObject({ token_endpoint_auth_method: "tls_client_auth", tls_client_auth_subject_dn: TEST_TPP.aisp.subjectDn });
    // The statement says PSP_AI and PSP_PI; the certificate only PSP_AI.
    const { apps } = await admin.data('query($s: String) { apps(filter: { search: $s }) { nodes { registration { roles certificateOrganizationIdentifier ncaName ncaId } } } }', {
      s: registered.body.client_id,
    });
    expect(apps.nodes[0].registration).toEqual({ roles: ["PSP_AI"], certificateOrganizationIdentifier: TEST_TPP.aisp.organizationIdentifier, ncaName: TEST_TPP.ncaName, ncaId: TEST_TPP.ncaId });
    const token = await mtlsToken(client, server.tlsUrl!, registered.body.client_id);
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    expect((await introspect(token.body.access_token)).api_product_list_json).toEqual(["PSD2-AISP-v1"]);
  });
});

describe("the admin API's tls_client_auth settings", () => {
  it("needs the certificate name for tls_client_auth and checks it", async () => {
    const app = await createApp("Needs a name", ["PSD2-AISP-v1"]);
    const missing = await admin.post(SET_SETTINGS, { id: app.id, input: { tokenEndpointAuthMethods: ["tls_client_auth"] } });
    expect(firstError(missing)).toMatchObject({ code: "BAD_USER_INPUT" });
    expect(firstError(missing).message).toMatch(/^tlsClientAuth: tls_client_auth needs the name/);
    const badDn = await admin.post(SET_SETTINGS, { id: app.id, input: { tlsClientAuth: { parameter: "tls_client_auth_subject_dn", value: "CN=a,,O=b" } } });
    expect(firstError(badDn).message).toMatch(/^tlsClientAuth: /);
    const badIp = await admin.post(SET_SETTINGS, { id: app.id, input: { tlsClientAuth: { parameter: "tls_client_auth_san_ip", value: "300.1.1.1" } } });
    expect(firstError(badIp).code).toBe("BAD_USER_INPUT");
    const set = await admin.data(SET_SETTINGS, {
      id: app.id,
      input: { tokenEndpointAuthMethods: ["tls_client_auth"], tlsClientAuth: { parameter: "tls_client_auth_san_dns", value: TEST_TPP.aisp.dns } },
    });
    expect(set.setAppSettings).toEqual({ tokenEndpointAuthMethods: ["tls_client_auth"], tlsClientAuth: { parameter: "tls_client_auth_san_dns", value: TEST_TPP.aisp.dns } });
    // The SAN registered: the AISP certificate authenticates this app too.
    expect((await mtlsToken(await tlsClient(pki.aisp), server.tlsUrl!, app.clientId)).status).toBe(200);
  });
});

/** The RFC 8705 §3.1 thumbprint of a test certificate, computed independently of the server's code. */
async function thumbprint(test: TestCertificate): Promise<string> {
  const { createHash } = await import("node:crypto");
  return createHash("sha256").update(test.der).digest("base64url");
}
