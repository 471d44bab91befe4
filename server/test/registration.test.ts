/**
 * Dynamic client registration (RFC 7591) and client management (RFC 7592) against the running
 * server, with software statements signed by the demo directory (server/src/demo/directory.ts),
 * which a demo server trusts: a registration, the new client's FAPI 2.0 flow (private_key_jwt,
 * DPoP), each kind of bad statement, read, update and delete with the registration access
 * token, the audit, registrations waiting for the bank's approval, and the algorithm of the
 * client's ID tokens (OpenID Connect Registration §2), down to an ID token of its code flow; its
 * subject type and sector identifier URI (Core §8.1), served by the TPP's HTTPS servers of this
 * test on 127.0.0.1, down to the pairwise `sub` of its ID tokens; its post-logout redirect URIs
 * (RP-Initiated Logout 1.0 §3.1), down to the logout endpoint's redirect; and its nonce
 * requirement (Core §3.1.2.1), down to its pushed requests.
 */
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import tls from "node:tls";
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, generateKeyPair, jwtVerify, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_DIRECTORY_ISSUER, DEMO_SOFTWARE } from "../src/demo/directory.js";
import { DEMO } from "../src/demo/seed.js";
import { assertionFields, authorizePushed, dpopCall, DpopKey, PAR_ENDPOINT, postForm } from "./support/fapi.js";
import { pkcePair, randomState, send, TOKEN_ENDPOINT } from "./support/flow.js";
import { freePort } from "./support/free-port.js";
import { adminBearer, type GraphQLClient } from "./support/graphql.js";
import { startIssuerServer } from "./support/oauth4webapi.js";
import { issueCertificate, privateKeyPem } from "./support/pki.js";
import { newSoftwareId, newSoftwareStatement } from "./support/registration.js";
import type { TestServer } from "./support/server.js";

const REGISTER = "/oauth2/v1/register";

let server: TestServer;
let admin: GraphQLClient;

beforeAll(async () => {
  // BASE_URL and AUTH_URL are the server's real address: registration_client_uri and the assertions'
  // audience name it. The TPP's sector_identifier_uri is on this machine (127.0.0.1): private addresses allowed.
  ({ server } = await startIssuerServer({ OUTBOUND_ALLOW_PRIVATE_ADDRESSES: "true" }));
  admin = await adminBearer(server.url);
});
afterAll(() => server?.close());

/**
 * Makes the server's outbound TLS connections (undici calls tls.connect for each) to `ports`, and
 * only to them, trust `caPem` besides the usual roots: the server runs in this process, and
 * tls.setDefaultCACertificates would trust the CA for every port, the untrusted sector server's
 * too. Certificates are still verified.
 * @returns what undoes it.
 */
function trustOnPorts(caPem: string, ports: ReadonlySet<number>): () => void {
  const original = tls.connect;
  const connect = (...args: unknown[]) => {
    const [options] = args;
    if (typeof options === "object" && options !== null && ports.has(Number((options as tls.ConnectionOptions).port))) {
      args[0] = { ...(options as tls.ConnectionOptions), ca: [...tls.rootCertificates, caPem] };
    }
    return (original as (...a: unknown[]) => tls.TLSSocket).apply(tls, args);
  };
  Object.assign(tls, { connect });
  return () => Object.assign(tls, { connect: original });
}

/** What a TPP's sector server answers, by path (OpenID Connect Registration section 5), and the paths it was asked for. */
interface SectorServer {
  /** `https://127.0.0.1:<port>`. */
  url: string;
  port: number;
  requests: string[];
  server: HttpsServer;
}

/** The second redirect URI a statement may list: on another host than the demo's. */
const OTHER_HOST_REDIRECT = "https://app.tpp.example/cb";

/** A TPP's HTTPS server on 127.0.0.1 with `cert`, serving sector_identifier_uri documents and some bad answers. */
async function startSectorServer(cert: string, key: string): Promise<SectorServer> {
  const requests: string[] = [];
  const server = createHttpsServer({ cert, key }, (req, res) => {
    requests.push(req.url ?? "");
    const path = (req.url ?? "").split("?")[0];
    const json = (status: number, body: string): void => void res.writeHead(status, { "Content-Type": "application/json" }).end(body);
    if (path === "/sector.json") return json(200, JSON.stringify([DEMO_SOFTWARE.redirectUri, OTHER_HOST_REDIRECT]));
    if (path === "/elsewhere.json") return json(200, JSON.stringify(["https://elsewhere.example/cb"]));
    if (path === "/error") return json(500, JSON.stringify([DEMO_SOFTWARE.redirectUri]));
    if (path === "/invalid") return json(200, `[${JSON.stringify(DEMO_SOFTWARE.redirectUri)}`);
    if (path === "/object") return json(200, JSON.stringify({ redirect_uris: [DEMO_SOFTWARE.redirectUri] }));
    if (path === "/redirect") return void res.writeHead(302, { Location: "/sector.json" }).end();
    json(404, "[]");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `https://127.0.0.1:${port}`, port, requests, server };
}

/** A registration request (JSON) with a demo statement and `members`. */
async function register(members: Record<string, unknown> = {}, base = () => server.url) {
  return send(`${base()}${REGISTER}`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ software_statement: await newSoftwareStatement(), token_endpoint_auth_method: "private_key_jwt", grant_types: ["client_credentials"], ...members }),
  });
}

/** A configuration endpoint request (RFC 7592) with `token` as Bearer. */
function configure(uri: string, token: string, method = "GET", body?: unknown) {
  return send(uri, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** A client credentials token of a private_key_jwt client, DPoP-bound (FAPI 2.0). */
async function fapiToken(clientId: string, key: DpopKey) {
  return postForm(server.url, TOKEN_ENDPOINT, { grant_type: "client_credentials", client_id: clientId, ...(await assertionFields(server.url, {}, clientId)) }, {
    DPoP: await key.proof("POST", `${server.url}${TOKEN_ENDPOINT}`),
  });
}

/**
 * Alice's ID token for the registered client `clientId` (private_key_jwt with the demo key,
 * DPoP): PAR with `openid`, sign-in and consent, the code exchange.
 */
async function idTokenOf(clientId: string): Promise<{ idToken: string; nonce: string }> {
  const pkce = pkcePair();
  const nonce = randomState();
  const pushed = await postForm(server.url, PAR_ENDPOINT, {
    response_type: "code",
    redirect_uri: DEMO_SOFTWARE.redirectUri,
    scope: "openid aisp",
    state: randomState(),
    nonce,
    code_challenge: pkce.challenge,
    code_challenge_method: "S256",
    ...(await assertionFields(server.url, {}, clientId)),
  });
  expect(pushed.status, pushed.text).toBe(201);
  const callback = await authorizePushed(server.url, pushed.body.request_uri, clientId, DEMO_SOFTWARE.redirectUri);
  expect(callback.code, JSON.stringify(callback)).toEqual(expect.any(String));
  const key = await DpopKey.generate();
  const form = { grant_type: "authorization_code", code: callback.code, redirect_uri: DEMO_SOFTWARE.redirectUri, code_verifier: pkce.verifier, ...(await assertionFields(server.url, {}, clientId)) };
  const answer = await postForm(server.url, TOKEN_ENDPOINT, form, { DPoP: await key.proof("POST", `${server.url}${TOKEN_ENDPOINT}`) });
  expect(answer.status, answer.text).toBe(200);
  expect(answer.body.id_token).toEqual(expect.any(String));
  return { idToken: answer.body.id_token, nonce };
}

describe("registration (RFC 7591)", () => {
  it("the metadata names the registration endpoint", async () => {
    const meta = (await send(`${server.url}/.well-known/oauth-authorization-server`)).body;
    expect(meta.registration_endpoint).toBe(`${server.url}${REGISTER}`);
  });

  it("a trusted software statement registers a FAPI 2.0 client, which gets a DPoP-bound token and calls the gateway", async () => {
    const softwareId = newSoftwareId();
    const answer = await register({ software_statement: await newSoftwareStatement({ claims: { software_id: softwareId } }) });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    const body = answer.body;
    expect(body).toMatchObject({
      token_endpoint_auth_method: "private_key_jwt",
      grant_types: ["client_credentials"],
      software_id: softwareId,
      status: "approved",
      redirect_uris: [DEMO_SOFTWARE.redirectUri],
      registration_client_uri: `${server.url}${REGISTER}/${body.client_id}`,
      require_pushed_authorization_requests: true,
      id_token_signed_response_alg: "PS256",
      introspection_signed_response_alg: "PS256",
      authorization_signed_response_alg: "PS256",
    });
    expect(body.client_id).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(body.registration_access_token).toEqual(expect.any(String));
    expect(body).not.toHaveProperty("client_secret");

    const key = await DpopKey.generate();
    const token = await fapiToken(body.client_id, key);
    expect(token.status, token.text).toBe(200);
    expect(token.body.token_type).toBe("DPoP");
    // PSP_AI and PSP_PI: the account information and payment products.
    expect(token.body.scope.split(" ").sort()).toEqual(["aisp", "extended_transaction_history", "pisp"]);
    // Open data: account data would need the PSU, which a client credentials token has not.
    expect((await dpopCall(server.url, token.body.access_token, key, "/products/")).status).toBe(200);

    // Audited, and visible in the admin API with the TPP's identity.
    const events = (await admin.data('query($c: String) { auditEvents(clientId: $c, type: "registration.created") { nodes { details } } }', { c: body.client_id })).auditEvents.nodes;
    expect(JSON.parse(events[0].details)).toMatchObject({ software_id: softwareId, roles: ["PSP_PI", "PSP_AI"], status: "approved" });
    const { apps } = await admin.data('query($s: String) { apps(filter: { search: $s }) { nodes { status registration { softwareId roles organizationId organizationName } } } }', { s: body.client_id });
    expect(apps.nodes).toEqual([
      { status: "approved", registration: { softwareId, roles: ["PSP_PI", "PSP_AI"], organizationId: DEMO_SOFTWARE.organizationId, organizationName: DEMO.organization } },
    ]);
  });

  it("refuses each kind of bad statement or metadata with the RFC 7591 error, and registers nothing", async () => {
    const { apps: before } = await admin.data("{ apps(first: 200) { nodes { id } } }");
    const { privateKey } = await generateKeyPair("EdDSA");
    const foreign = await new SignJWT({ iss: DEMO_DIRECTORY_ISSUER, iat: Math.floor(Date.now() / 1000), software_id: "x", software_roles: ["PSP_AI"] })
      .setProtectedHeader({ alg: "EdDSA" })
      .sign(privateKey);
    const cases: [string, Record<string, unknown>, string][] = [
      ["a statement signed by another key", { software_statement: foreign }, "invalid_software_statement"],
      ["an expired statement", { software_statement: await newSoftwareStatement({ now: new Date(Date.now() - 7_200_000), lifetimeSeconds: 60 }) }, "invalid_software_statement"],
      ["a statement of another issuer", { software_statement: await newSoftwareStatement({ claims: { iss: "https://other.example" } }) }, "invalid_software_statement"],
      ["no statement", { software_statement: undefined }, "invalid_software_statement"],
      ["a statement that is not a JWS", { software_statement: "not.a.jws" }, "invalid_software_statement"],
      ["a redirect URI outside the statement's", { redirect_uris: ["https://evil.example/cb"], grant_types: ["authorization_code"], response_types: ["code"] }, "invalid_redirect_uri"],
      ["a client name contradicting the statement", { client_name: "Someone Else" }, "invalid_client_metadata"],
      ["client_secret_basic under the fapi2 profile", { token_endpoint_auth_method: "client_secret_basic" }, "invalid_client_metadata"],
      ["roles that allow no product", { software_statement: await newSoftwareStatement({ claims: { software_roles: ["PSP_AS"] } }) }, "invalid_software_statement"],
    ];
    for (const [what, members, error] of cases) {
      const answer = await register(members);
      expect(answer.status, what).toBe(400);
      expect(answer.body.error, `${what}: ${answer.text}`).toBe(error);
      expect(answer.body.error_description, what).toEqual(expect.any(String));
    }
    const notJson = await send(`${server.url}${REGISTER}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{" });
    expect(notJson.status).toBe(400);
    expect((await admin.data("{ apps(first: 200) { nodes { id } } }")).apps.nodes).toHaveLength(before.nodes.length);
  });
});

describe("the TPP's organization, keyed by the directory's org_id", () => {
  /** The organizations whose registrations developer owns the app of `clientId`: its organization's id, name and display name. */
  async function organizationOf(clientId: string) {
    const credential = await server.prisma.credential.findUniqueOrThrow({ where: { consumerKey: clientId }, select: { app: { select: { developer: { select: { organization: true } } } } } });
    return credential.app.developer.organization;
  }
  const registered = async (claims: Record<string, unknown>) => {
    const answer = await register({ software_statement: await newSoftwareStatement({ claims }) });
    expect(answer.status, answer.text).toBe(201);
    return organizationOf(answer.body.client_id);
  };

  it("never joins an organization by its display name: the demo's own organization (made by an admin) is not joined", async () => {
    const demo = await server.prisma.organization.findFirstOrThrow({ where: { displayName: DEMO.organization } });
    const joined = await registered({ org_id: "impostor-org", org_name: DEMO.organization });
    expect(joined.id).not.toBe(demo.id);
    expect(joined.displayName).toBe(DEMO.organization);
  });

  it("the same org_name with another org_id is another organization; the same org_id under a new name is the same one", async () => {
    const first = await registered({ org_id: "org-a", org_name: "Same Name Ltd" });
    const second = await registered({ org_id: "org-b", org_name: "Same Name Ltd" });
    expect(second.id).not.toBe(first.id);
    const renamed = await registered({ org_id: "org-a", org_name: "Renamed Ltd" });
    expect(renamed.id).toBe(first.id);
    expect(await server.prisma.organization.count({ where: { displayName: "Same Name Ltd" } })).toBe(2);
  });

  it("two first registrations of one org_id at the same time make one organization", async () => {
    const answers = await Promise.all([0, 1, 2].map(async () => register({ software_statement: await newSoftwareStatement({ claims: { org_id: "org-concurrent", org_name: "Concurrent Ltd" } }) })));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
    const organizations = await Promise.all(answers.map((a) => organizationOf(a.body.client_id)));
    expect(new Set(organizations.map((o) => o.id)).size).toBe(1);
  });

  it("a statement without org_id registers nothing", async () => {
    const answer = await register({ software_statement: await newSoftwareStatement({ claims: { org_id: undefined } }) });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: "invalid_software_statement", error_description: expect.stringMatching(/org_id/) });
  });
});

describe("one statement, one client: jti and exp (decisions.md \"Dynamic client registration\")", () => {
  it("a statement registers one client: the same statement again is refused, and so is one without jti", async () => {
    const statement = await newSoftwareStatement();
    expect((await register({ software_statement: statement })).status).toBe(201);
    const again = await register({ software_statement: statement });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ error: "invalid_software_statement", error_description: expect.stringMatching(/already been used/) });
    const noJti = await register({ software_statement: await newSoftwareStatement({ claims: { jti: undefined } }) });
    expect(noJti.status).toBe(400);
    expect(noJti.body).toMatchObject({ error: "invalid_software_statement", error_description: expect.stringMatching(/jti/) });
  });

  it("a refused registration does not use up its statement", async () => {
    const statement = await newSoftwareStatement();
    const refused = await register({ software_statement: statement, client_name: "Someone Else" });
    expect(refused.body.error).toBe("invalid_client_metadata");
    expect((await register({ software_statement: statement })).status).toBe(201);
  });

  it("an update (RFC 7592) that brings a new statement uses it up, and may not move the client to another org_id", async () => {
    const registered = (await register()).body;
    const read = (await configure(registered.registration_client_uri, registered.registration_access_token)).body;
    const fresh = await newSoftwareStatement({ claims: { software_id: registered.software_id } });
    const updated = await configure(registered.registration_client_uri, registered.registration_access_token, "PUT", { ...read, software_statement: fresh });
    expect(updated.status, updated.text).toBe(200);
    const reused = await register({ software_statement: fresh });
    expect(reused.body).toMatchObject({ error: "invalid_software_statement", error_description: expect.stringMatching(/already been used/) });
    const otherOrg = await configure(registered.registration_client_uri, updated.body.registration_access_token, "PUT", {
      ...read,
      software_statement: await newSoftwareStatement({ claims: { org_id: "another-org", software_id: registered.software_id } }),
    });
    expect(otherOrg.status).toBe(400);
    expect(otherOrg.body).toMatchObject({ error: "invalid_software_statement", error_description: expect.stringMatching(/another organization \(org_id\)/) });
  });

  it("refuses a statement whose exp is further after its iat than REGISTRATION_STATEMENT_MAX_LIFETIME_SECONDS (30 days)", async () => {
    const tenYears = await register({ software_statement: await newSoftwareStatement({ lifetimeSeconds: 10 * 365 * 86_400 }) });
    expect(tenYears.status).toBe(400);
    expect(tenYears.body).toMatchObject({ error: "invalid_software_statement", error_description: expect.stringMatching(/exp/) });
    expect((await register({ software_statement: await newSoftwareStatement({ lifetimeSeconds: 30 * 86_400 }) })).status).toBe(201);
    expect((await register({ software_statement: await newSoftwareStatement({ lifetimeSeconds: 30 * 86_400 + 1 }) })).status).toBe(400);
  });
});

describe("client management (RFC 7592)", () => {
  it("reads, updates and deletes a client with its registration access token; another token gets 401", async () => {
    const registered = (await register()).body;
    const uri = registered.registration_client_uri;
    const read = await configure(uri, registered.registration_access_token);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ client_id: registered.client_id, software_id: registered.software_id, token_endpoint_auth_method: "private_key_jwt", status: "approved" });
    // Only hashes are kept: the token is not returned again.
    expect(read.body).not.toHaveProperty("registration_access_token");
    for (const token of ["wrong-token", `${registered.registration_access_token}x`]) {
      const refused = await configure(uri, token);
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
    }

    // PUT replaces the metadata and rotates the registration access token.
    const { registration_access_token: _t, registration_client_uri: _u, client_id_issued_at: _i, ...metadata } = read.body;
    const updated = await configure(uri, registered.registration_access_token, "PUT", { ...metadata, client_id: registered.client_id, grant_types: ["client_credentials"] });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.registration_access_token).not.toBe(registered.registration_access_token);
    expect((await configure(uri, registered.registration_access_token)).status).toBe(401);
    const token = updated.body.registration_access_token;
    // Another client's id in the body is refused.
    const other = await configure(uri, token, "PUT", { ...metadata, client_id: "someone-else" });
    expect(other.status).toBe(400);
    expect(other.body.error).toBe("invalid_client_metadata");

    const key = await DpopKey.generate();
    const issued = await fapiToken(registered.client_id, key);
    expect(issued.status).toBe(200);
    const deleted = await configure(uri, token, "DELETE");
    expect(deleted.status).toBe(204);
    // Gone: its token, its registration access token and its client authentication.
    expect((await dpopCall(server.url, issued.body.access_token, key)).status).toBe(401);
    expect((await configure(uri, token)).status).toBe(401);
    expect((await fapiToken(registered.client_id, key)).status).toBe(401);
  });
});

describe("id_token_signed_response_alg (OpenID Connect Registration section 2)", () => {
  /** The App column the token endpoint signs ID tokens by, of the client `clientId`. */
  async function storedAlg(clientId: string): Promise<string> {
    const credential = await server.prisma.credential.findUniqueOrThrow({ where: { consumerKey: clientId }, select: { app: { select: { idTokenSignedResponseAlg: true } } } });
    return credential.app.idTokenSignedResponseAlg;
  }

  it("registered with ES256: stored on the app, answered at registration and at a read", async () => {
    const answer = await register({ id_token_signed_response_alg: "ES256" });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.id_token_signed_response_alg).toBe("ES256");
    expect(await storedAlg(answer.body.client_id)).toBe("ES256");
    const read = await configure(answer.body.registration_client_uri, answer.body.registration_access_token);
    expect(read.body.id_token_signed_response_alg).toBe("ES256");
  });

  it("left out: PS256, stored and answered", async () => {
    const answer = await register();
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.id_token_signed_response_alg).toBe("PS256");
    expect(await storedAlg(answer.body.client_id)).toBe("PS256");
    expect((await configure(answer.body.registration_client_uri, answer.body.registration_access_token)).body.id_token_signed_response_alg).toBe("PS256");
  });

  it("anything but PS256 or ES256 is 400 invalid_client_metadata naming them, and registers nothing", async () => {
    const before = await server.prisma.app.count();
    for (const alg of ["RS256", "none", "HS256", 256]) {
      const answer = await register({ id_token_signed_response_alg: alg });
      expect(answer.status, String(alg)).toBe(400);
      expect(answer.body).toEqual({ error: "invalid_client_metadata", error_description: expect.stringMatching(/^id_token_signed_response_alg must be PS256 or ES256 /) });
    }
    expect(await server.prisma.app.count()).toBe(before);
  });

  it("an RFC 7592 update changes it to ES256: answered, stored and read back; leaving it out goes back to PS256", async () => {
    const registered = (await register()).body;
    const uri = registered.registration_client_uri;
    const read = (await configure(uri, registered.registration_access_token)).body;
    const updated = await configure(uri, registered.registration_access_token, "PUT", { ...read, id_token_signed_response_alg: "ES256" });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.id_token_signed_response_alg).toBe("ES256");
    expect(await storedAlg(registered.client_id)).toBe("ES256");
    expect((await configure(uri, updated.body.registration_access_token)).body.id_token_signed_response_alg).toBe("ES256");

    const refused = await configure(uri, updated.body.registration_access_token, "PUT", { ...read, id_token_signed_response_alg: "RS256" });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("invalid_client_metadata");
    expect(await storedAlg(registered.client_id)).toBe("ES256");

    const { id_token_signed_response_alg: _alg, ...withoutAlg } = read;
    const reset = await configure(uri, updated.body.registration_access_token, "PUT", withoutAlg);
    expect(reset.status, reset.text).toBe(200);
    expect(reset.body.id_token_signed_response_alg).toBe("PS256");
    expect(await storedAlg(registered.client_id)).toBe("PS256");
  });

  it("a client registered with ES256 gets ES256 ID tokens from its code flow, verified with the JWK Set; PS256 after an update", async () => {
    await server.keyring.ready();
    const registered = (await register({ grant_types: ["authorization_code"], id_token_signed_response_alg: "ES256" })).body;
    expect(registered.id_token_signed_response_alg).toBe("ES256");
    const jwks = createLocalJWKSet((await send(`${server.url}/oauth2/v1/jwks`)).body);
    const verify = (idToken: string, alg: string) => jwtVerify(idToken, jwks, { algorithms: [alg], issuer: server.url, audience: registered.client_id });

    const first = await idTokenOf(registered.client_id);
    expect(decodeProtectedHeader(first.idToken).alg).toBe("ES256");
    expect((await verify(first.idToken, "ES256")).payload).toMatchObject({ azp: registered.client_id, nonce: first.nonce });

    // The update reaches the token endpoint at once (the app store's writes empty its cache).
    const read = (await configure(registered.registration_client_uri, registered.registration_access_token)).body;
    const updated = await configure(registered.registration_client_uri, registered.registration_access_token, "PUT", { ...read, id_token_signed_response_alg: "PS256" });
    expect(updated.status, updated.text).toBe(200);
    const second = await idTokenOf(registered.client_id);
    expect(decodeProtectedHeader(second.idToken).alg).toBe("PS256");
    await verify(second.idToken, "PS256");
  });
});

describe("introspection_signed_response_alg (RFC 9701 section 6)", () => {
  /** The App column signed introspection responses to the client `clientId` are signed by. */
  async function storedAlg(clientId: string): Promise<string> {
    const credential = await server.prisma.credential.findUniqueOrThrow({ where: { consumerKey: clientId }, select: { app: { select: { introspectionSignedResponseAlg: true } } } });
    return credential.app.introspectionSignedResponseAlg;
  }

  it("registered with ES256: stored on the app, answered at registration and at a read; left out: PS256", async () => {
    const answer = await register({ introspection_signed_response_alg: "ES256" });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.introspection_signed_response_alg).toBe("ES256");
    expect(await storedAlg(answer.body.client_id)).toBe("ES256");
    expect((await configure(answer.body.registration_client_uri, answer.body.registration_access_token)).body.introspection_signed_response_alg).toBe("ES256");
    const plain = await register();
    expect(plain.body.introspection_signed_response_alg).toBe("PS256");
    expect(await storedAlg(plain.body.client_id)).toBe("PS256");
  });

  it("anything but PS256 or ES256 is 400 invalid_client_metadata naming them, and registers nothing", async () => {
    const before = await server.prisma.app.count();
    for (const alg of ["RS256", "none", "HS256", 256]) {
      const answer = await register({ introspection_signed_response_alg: alg });
      expect(answer.status, String(alg)).toBe(400);
      expect(answer.body).toEqual({ error: "invalid_client_metadata", error_description: expect.stringMatching(/^introspection_signed_response_alg must be PS256 or ES256 /) });
    }
    expect(await server.prisma.app.count()).toBe(before);
  });

  it("an RFC 7592 update changes it to ES256 and, left out, back to PS256", async () => {
    const registered = (await register()).body;
    const uri = registered.registration_client_uri;
    const read = (await configure(uri, registered.registration_access_token)).body;
    const updated = await configure(uri, registered.registration_access_token, "PUT", { ...read, introspection_signed_response_alg: "ES256" });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.introspection_signed_response_alg).toBe("ES256");
    expect(await storedAlg(registered.client_id)).toBe("ES256");
    const { introspection_signed_response_alg: _alg, ...withoutAlg } = read;
    const reset = await configure(uri, updated.body.registration_access_token, "PUT", withoutAlg);
    expect(reset.status, reset.text).toBe(200);
    expect(reset.body.introspection_signed_response_alg).toBe("PS256");
    expect(await storedAlg(registered.client_id)).toBe("PS256");
  });
});

describe("authorization_signed_response_alg (JARM section 3)", () => {
  /** The App column signed authorization responses to the client `clientId` are signed by. */
  async function storedAlg(clientId: string): Promise<string> {
    const credential = await server.prisma.credential.findUniqueOrThrow({ where: { consumerKey: clientId }, select: { app: { select: { authorizationSignedResponseAlg: true } } } });
    return credential.app.authorizationSignedResponseAlg;
  }

  it("registered with ES256: stored on the app, answered at registration and at a read; left out: PS256", async () => {
    const answer = await register({ authorization_signed_response_alg: "ES256" });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.authorization_signed_response_alg).toBe("ES256");
    expect(await storedAlg(answer.body.client_id)).toBe("ES256");
    expect((await configure(answer.body.registration_client_uri, answer.body.registration_access_token)).body.authorization_signed_response_alg).toBe("ES256");
    const plain = await register();
    expect(plain.body.authorization_signed_response_alg).toBe("PS256");
    expect(await storedAlg(plain.body.client_id)).toBe("PS256");
  });

  it("anything but PS256 or ES256 is 400 invalid_client_metadata naming them, and registers nothing", async () => {
    const before = await server.prisma.app.count();
    for (const alg of ["RS256", "none", "HS256", 256]) {
      const answer = await register({ authorization_signed_response_alg: alg });
      expect(answer.status, String(alg)).toBe(400);
      expect(answer.body).toEqual({ error: "invalid_client_metadata", error_description: expect.stringMatching(/^authorization_signed_response_alg must be PS256 or ES256 /) });
    }
    expect(await server.prisma.app.count()).toBe(before);
  });
});

describe("subject_type and sector_identifier_uri (OpenID Connect Registration section 2, Core section 8.1)", () => {
  /** Two TPP sector servers: two hosts (127.0.0.1 on two ports), so two sectors. */
  let tpp: SectorServer;
  let otherTpp: SectorServer;
  /** A third, with the same certificate, on a port whose CA the server is not told to trust. */
  let untrusted: SectorServer;
  let untrust: () => void;

  beforeAll(async () => {
    const now = Date.now();
    const ca = await issueCertificate({ subject: [{ CN: ["Registration test TPP CA"] }], notBefore: new Date(now - 86_400_000), notAfter: new Date(now + 86_400_000), ca: {} });
    const leaf = await issueCertificate({
      subject: [{ CN: ["127.0.0.1"] }],
      issuer: ca,
      notBefore: new Date(now - 86_400_000),
      notAfter: new Date(now + 86_400_000),
      sans: [{ type: "ip", value: "127.0.0.1" }],
    });
    const key = await privateKeyPem(leaf);
    [tpp, otherTpp, untrusted] = await Promise.all([startSectorServer(leaf.pem, key), startSectorServer(leaf.pem, key), startSectorServer(leaf.pem, key)]);
    untrust = trustOnPorts(ca.pem, new Set([tpp.port, otherTpp.port]));
  });
  afterAll(async () => {
    untrust?.();
    for (const each of [tpp, otherTpp, untrusted]) {
      each?.server.closeAllConnections();
      await new Promise<void>((resolve) => (each ? each.server.close(() => resolve()) : resolve()));
    }
  });

  /** The App columns the subjects are computed from, of the client `clientId`. */
  async function storedSubjects(clientId: string) {
    const credential = await server.prisma.credential.findUniqueOrThrow({ where: { consumerKey: clientId }, select: { app: { select: { subjectType: true, sectorIdentifierUri: true } } } });
    return credential.app;
  }

  it("left out: public, stored and answered, with no sector_identifier_uri", async () => {
    const answer = await register();
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.subject_type).toBe("public");
    expect(answer.body).not.toHaveProperty("sector_identifier_uri");
    expect(await storedSubjects(answer.body.client_id)).toEqual({ subjectType: "public", sectorIdentifierUri: null });
    const read = await configure(answer.body.registration_client_uri, answer.body.registration_access_token);
    expect(read.body.subject_type).toBe("public");
  });

  it("pairwise with a sector_identifier_uri listing the redirect URI: fetched, stored, answered at registration and read; a PUT changes it, and fetches it only when it or the redirect URIs change", async () => {
    const sector = `${tpp.url}/sector.json`;
    tpp.requests.length = 0;
    const answer = await register({ subject_type: "pairwise", sector_identifier_uri: sector });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body).toMatchObject({ subject_type: "pairwise", sector_identifier_uri: sector, redirect_uris: [DEMO_SOFTWARE.redirectUri] });
    expect(tpp.requests).toEqual(["/sector.json"]);
    expect(await storedSubjects(answer.body.client_id)).toEqual({ subjectType: "pairwise", sectorIdentifierUri: sector });
    const uri = answer.body.registration_client_uri;
    const read = (await configure(uri, answer.body.registration_access_token)).body;
    expect(read).toMatchObject({ subject_type: "pairwise", sector_identifier_uri: sector });

    // Sent back as read: nothing fetched.
    const same = await configure(uri, answer.body.registration_access_token, "PUT", read);
    expect(same.status, same.text).toBe(200);
    expect(tpp.requests).toHaveLength(1);
    // Another sector_identifier_uri that lists the redirect URI: fetched, stored.
    const moved = await configure(uri, same.body.registration_access_token, "PUT", { ...read, sector_identifier_uri: `${otherTpp.url}/sector.json` });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.sector_identifier_uri).toBe(`${otherTpp.url}/sector.json`);
    expect(await storedSubjects(answer.body.client_id)).toEqual({ subjectType: "pairwise", sectorIdentifierUri: `${otherTpp.url}/sector.json` });
    // One that does not list it: refused, and the client keeps what it had.
    const refused = await configure(uri, moved.body.registration_access_token, "PUT", { ...read, sector_identifier_uri: `${tpp.url}/elsewhere.json` });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: "invalid_client_metadata", error_description: expect.stringMatching(/^sector_identifier_uri does not list redirect_uri https:\/\/localhost:8443\/callback/) });
    expect(await storedSubjects(answer.body.client_id)).toEqual({ subjectType: "pairwise", sectorIdentifierUri: `${otherTpp.url}/sector.json` });
    // Public, without it.
    const { subject_type: _type, sector_identifier_uri: _uri, ...publicRead } = read;
    const reset = await configure(uri, moved.body.registration_access_token, "PUT", publicRead);
    expect(reset.status, reset.text).toBe(200);
    expect(reset.body.subject_type).toBe("public");
    expect(reset.body).not.toHaveProperty("sector_identifier_uri");
    expect(await storedSubjects(answer.body.client_id)).toEqual({ subjectType: "public", sectorIdentifierUri: null });
  });

  it("anything but public or pairwise is 400 invalid_client_metadata naming them, and registers nothing", async () => {
    const before = await server.prisma.app.count();
    for (const type of ["Pairwise", "ppid", "", 1, ["pairwise"]]) {
      const answer = await register({ subject_type: type });
      expect(answer.status, String(type)).toBe(400);
      expect(answer.body).toEqual({ error: "invalid_client_metadata", error_description: "subject_type must be public or pairwise (OpenID Connect Core section 8)" });
    }
    expect(await server.prisma.app.count()).toBe(before);
  });

  it("a sector_identifier_uri that does not list the redirect URI, cannot be fetched or is no JSON array of URLs is 400 invalid_client_metadata, and registers nothing", async () => {
    const before = await server.prisma.app.count();
    const closed = await freePort();
    const cases: [string, RegExp][] = [
      [`${tpp.url}/elsewhere.json`, /^sector_identifier_uri does not list redirect_uri https:\/\/localhost:8443\/callback/],
      [`${tpp.url}/error`, /^sector_identifier_uri could not be fetched: it answered HTTP 500, not 200$/],
      [`${tpp.url}/missing.json`, /^sector_identifier_uri could not be fetched: it answered HTTP 404/],
      // No redirect is followed.
      [`${tpp.url}/redirect`, /^sector_identifier_uri could not be fetched: it answered HTTP 302/],
      [`${tpp.url}/invalid`, /^sector_identifier_uri is not a JSON array of URLs/],
      [`${tpp.url}/object`, /^sector_identifier_uri is not a JSON array of URLs/],
      [`https://127.0.0.1:${closed}/sector.json`, /^sector_identifier_uri could not be fetched: the connection failed/],
      [`http://127.0.0.1:${tpp.port}/sector.json`, /^sector_identifier_uri must be an https URL$/],
      ["https://169.254.169.254/latest/meta-data/", /^sector_identifier_uri must be on neither a link-local nor a cloud metadata address$/],
    ];
    for (const [sector, description] of cases) {
      const answer = await register({ subject_type: "pairwise", sector_identifier_uri: sector });
      expect(answer.status, `${sector}: ${answer.text}`).toBe(400);
      expect(answer.body.error, sector).toBe("invalid_client_metadata");
      expect(answer.body.error_description, sector).toMatch(description);
    }
    expect(await server.prisma.app.count()).toBe(before);
  });

  it("a certificate the server does not trust is a 400 too: the fetch verifies TLS", async () => {
    const answer = await register({ subject_type: "pairwise", sector_identifier_uri: `${untrusted.url}/sector.json` });
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body).toMatchObject({ error: "invalid_client_metadata", error_description: expect.stringMatching(/^sector_identifier_uri could not be fetched: the connection failed/) });
    expect(untrusted.requests).toEqual([]);
  });

  it("pairwise with redirect URIs on two hosts needs a sector_identifier_uri listing them (Core section 8.1)", async () => {
    const twoHosts = () => newSoftwareStatement({ claims: { software_redirect_uris: [DEMO_SOFTWARE.redirectUri, OTHER_HOST_REDIRECT] } });
    const ambiguous = await register({ software_statement: await twoHosts(), subject_type: "pairwise" });
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body).toEqual({ error: "invalid_client_metadata", error_description: expect.stringMatching(/^a pairwise client whose redirect_uris are on more than one host needs a sector_identifier_uri/) });
    const sectored = await register({ software_statement: await twoHosts(), subject_type: "pairwise", sector_identifier_uri: `${tpp.url}/sector.json` });
    expect(sectored.status, sectored.text).toBe(201);
    expect(sectored.body.redirect_uris).toEqual([DEMO_SOFTWARE.redirectUri, OTHER_HOST_REDIRECT]);
    // Public: no sector to be ambiguous about.
    expect((await register({ software_statement: await twoHosts() })).status).toBe(201);
  });

  it("a pairwise client's ID tokens carry a sub of its sector, not the user's id: one for two clients of one sector, another for another sector", async () => {
    await server.keyring.ready();
    const alice = await server.prisma.user.findUniqueOrThrow({ where: { username: DEMO.user.username }, select: { id: true } });
    const pairwise = async (sector: string) => {
      const registered = await register({ grant_types: ["authorization_code"], subject_type: "pairwise", sector_identifier_uri: sector });
      expect(registered.status, registered.text).toBe(201);
      return decodeJwt((await idTokenOf(registered.body.client_id)).idToken).sub;
    };
    const first = await pairwise(`${tpp.url}/sector.json`);
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(first).not.toBe(alice.id);
    // Another client of the same sector (another document on the same host): the same sub.
    const sameSector = await pairwise(`${tpp.url}/sector.json?v=2`);
    expect(sameSector).toBe(first);
    // Another sector_identifier_uri host: another sub.
    const otherSector = await pairwise(`${otherTpp.url}/sector.json`);
    expect(otherSector).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(otherSector).not.toBe(first);
    expect(otherSector).not.toBe(alice.id);
  });
});

describe("post_logout_redirect_uris (OpenID Connect RP-Initiated Logout 1.0 section 3.1)", () => {
  const SIGNED_OUT = "https://localhost:8443/signed-out";
  const BYE = "https://app.tpp.example/bye?from=bank";

  /** The App column the logout endpoint matches against, of the client `clientId`. */
  async function storedLogoutUris(clientId: string): Promise<string> {
    const credential = await server.prisma.credential.findUniqueOrThrow({ where: { consumerKey: clientId }, select: { app: { select: { postLogoutRedirectUris: true } } } });
    return credential.app.postLogoutRedirectUris;
  }
  /** GET /oauth2/v1/logout with `params`, from a browser without a session. */
  const logout = (params: Record<string, string>) => send(`${server.url}/oauth2/v1/logout?${new URLSearchParams(params)}`);

  it("registered: stored on the app (space-separated), answered at registration and at a read; left out: none, and not answered", async () => {
    const answer = await register({ post_logout_redirect_uris: [SIGNED_OUT, BYE, SIGNED_OUT] });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.post_logout_redirect_uris).toEqual([SIGNED_OUT, BYE]);
    expect(await storedLogoutUris(answer.body.client_id)).toBe(`${SIGNED_OUT} ${BYE}`);
    const read = await configure(answer.body.registration_client_uri, answer.body.registration_access_token);
    expect(read.status, read.text).toBe(200);
    expect(read.body.post_logout_redirect_uris).toEqual([SIGNED_OUT, BYE]);

    const none = await register();
    expect(none.status, none.text).toBe(201);
    expect(none.body).not.toHaveProperty("post_logout_redirect_uris");
    expect(await storedLogoutUris(none.body.client_id)).toBe("");
  });

  it("a statement that lists some bounds them: the request registers some of them, or all when it names none; another is 400 invalid_client_metadata", async () => {
    const statement = () => newSoftwareStatement({ claims: { post_logout_redirect_uris: [SIGNED_OUT, BYE] } });
    const all = await register({ software_statement: await statement() });
    expect(all.status, all.text).toBe(201);
    expect(all.body.post_logout_redirect_uris).toEqual([SIGNED_OUT, BYE]);
    const some = await register({ software_statement: await statement(), post_logout_redirect_uris: [BYE] });
    expect(some.status, some.text).toBe(201);
    expect(some.body.post_logout_redirect_uris).toEqual([BYE]);
    const other = await register({ software_statement: await statement(), post_logout_redirect_uris: [SIGNED_OUT, "https://evil.example/signed-out"] });
    expect(other.status).toBe(400);
    expect(other.body).toEqual({
      error: "invalid_client_metadata",
      error_description: "post_logout_redirect_uris: https://evil.example/signed-out is not among the software statement's post_logout_redirect_uris",
    });
  });

  it("malformed (a fragment, relative, http, not an array, not strings) is 400 invalid_client_metadata naming the member, and registers nothing", async () => {
    const before = await server.prisma.app.count();
    const cases: [unknown, string][] = [
      [[`${SIGNED_OUT}#done`], "post_logout_redirect_uris: URI 1 must be without a fragment"],
      [[SIGNED_OUT, "/signed-out"], "post_logout_redirect_uris: URI 2 must be an absolute URL"],
      [["http://tpp.example/signed-out"], "post_logout_redirect_uris: URI 1 must be an https URL"],
      [SIGNED_OUT, "post_logout_redirect_uris must be an array of strings"],
      [{ uri: SIGNED_OUT }, "post_logout_redirect_uris must be an array of strings"],
      [[SIGNED_OUT, 1], "post_logout_redirect_uris must be an array of strings"],
      [[{ uri: SIGNED_OUT }], "post_logout_redirect_uris must be an array of strings"],
    ];
    for (const [uris, description] of cases) {
      const answer = await register({ post_logout_redirect_uris: uris });
      expect(answer.status, JSON.stringify(uris)).toBe(400);
      expect(answer.body, JSON.stringify(uris)).toEqual({ error: "invalid_client_metadata", error_description: description });
    }
    expect(await server.prisma.app.count()).toBe(before);
  });

  it("a PUT replaces them, one that leaves them out clears them, and a malformed one changes nothing: stored, answered and read back", async () => {
    const registered = (await register({ post_logout_redirect_uris: [SIGNED_OUT] })).body;
    const uri = registered.registration_client_uri;
    const read = (await configure(uri, registered.registration_access_token)).body;
    const replaced = await configure(uri, registered.registration_access_token, "PUT", { ...read, post_logout_redirect_uris: [BYE] });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body.post_logout_redirect_uris).toEqual([BYE]);
    expect(await storedLogoutUris(registered.client_id)).toBe(BYE);
    expect((await configure(uri, replaced.body.registration_access_token)).body.post_logout_redirect_uris).toEqual([BYE]);

    const refused = await configure(uri, replaced.body.registration_access_token, "PUT", { ...read, post_logout_redirect_uris: ["signed-out"] });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ error: "invalid_client_metadata", error_description: "post_logout_redirect_uris: URI 1 must be an absolute URL" });
    expect(await storedLogoutUris(registered.client_id)).toBe(BYE);

    const { post_logout_redirect_uris: _uris, ...withoutUris } = read;
    const cleared = await configure(uri, replaced.body.registration_access_token, "PUT", withoutUris);
    expect(cleared.status, cleared.text).toBe(200);
    expect(cleared.body).not.toHaveProperty("post_logout_redirect_uris");
    expect(await storedLogoutUris(registered.client_id)).toBe("");
    expect((await configure(uri, cleared.body.registration_access_token)).body).not.toHaveProperty("post_logout_redirect_uris");
  });

  it("the logout endpoint honours them: with the client's client_id and no session, a 302 to a registered one with state; an unregistered one is a 400, never redirected; a PUT's change counts at once", async () => {
    const registered = (await register({ post_logout_redirect_uris: [SIGNED_OUT, BYE] })).body;
    const clientId = registered.client_id;
    const honoured = await logout({ client_id: clientId, post_logout_redirect_uri: SIGNED_OUT, state: "af0ifjsldkj" });
    expect(honoured.status, honoured.text).toBe(302);
    expect(honoured.headers.get("location")).toBe(`${SIGNED_OUT}?state=af0ifjsldkj`);
    // A query of its own keeps its parameters.
    const withQuery = await logout({ client_id: clientId, post_logout_redirect_uri: BYE, state: "s2" });
    expect(withQuery.status, withQuery.text).toBe(302);
    expect(withQuery.headers.get("location")).toBe(`${BYE}&state=s2`);

    for (const unregistered of ["https://evil.example/signed-out", `${SIGNED_OUT}/`, DEMO.postLogoutRedirectUrl]) {
      const refused = await logout({ client_id: clientId, post_logout_redirect_uri: unregistered, state: "af0ifjsldkj" });
      expect(refused.status, unregistered).toBe(400);
      expect(refused.headers.get("location"), unregistered).toBeNull();
    }

    // After a PUT that drops SIGNED_OUT, it is refused at once (the app store's writes empty the catalog cache).
    const read = (await configure(registered.registration_client_uri, registered.registration_access_token)).body;
    const updated = await configure(registered.registration_client_uri, registered.registration_access_token, "PUT", { ...read, post_logout_redirect_uris: [BYE] });
    expect(updated.status, updated.text).toBe(200);
    expect((await logout({ client_id: clientId, post_logout_redirect_uri: SIGNED_OUT, state: "s3" })).status).toBe(400);
    expect((await logout({ client_id: clientId, post_logout_redirect_uri: BYE, state: "s3" })).headers.get("location")).toBe(`${BYE}&state=s3`);
  });
});

describe("require_nonce (OpenID Connect Core section 3.1.2.1)", () => {
  /** The App column the authorization endpoint reads (with the security profile), of the client `clientId`. */
  async function storedRequireNonce(clientId: string): Promise<boolean> {
    const credential = await server.prisma.credential.findUniqueOrThrow({ where: { consumerKey: clientId }, select: { app: { select: { requireNonce: true } } } });
    return credential.app.requireNonce;
  }
  /** A pushed authorization request of the registered client `clientId` with `scope` and `extra` parameters. */
  const push = async (clientId: string, scope: string, extra: Record<string, string> = {}) =>
    postForm(server.url, PAR_ENDPOINT, {
      response_type: "code",
      redirect_uri: DEMO_SOFTWARE.redirectUri,
      scope,
      code_challenge: pkcePair().challenge,
      code_challenge_method: "S256",
      ...extra,
      ...(await assertionFields(server.url, {}, clientId)),
    });

  it("a fapi2 client requires a nonce: true answered at registration and at a read, and stored; left out or true alike", async () => {
    for (const members of [{}, { require_nonce: true }]) {
      const answer = await register(members);
      expect(answer.status, answer.text).toBe(201);
      expect(answer.body.require_nonce).toBe(true);
      expect(await storedRequireNonce(answer.body.client_id)).toBe(true);
      expect((await configure(answer.body.registration_client_uri, answer.body.registration_access_token)).body.require_nonce).toBe(true);
    }
  });

  it("false for a fapi2 client, or anything but a boolean, is 400 invalid_client_metadata naming it, and registers nothing", async () => {
    const before = await server.prisma.app.count();
    for (const [value, description] of [
      [false, /leave require_nonce out or set it to true$/],
      ["true", /^require_nonce must be true or false$/],
      [1, /^require_nonce must be true or false$/],
    ] as const) {
      const answer = await register({ require_nonce: value });
      expect(answer.status, String(value)).toBe(400);
      expect(answer.body).toEqual({ error: "invalid_client_metadata", error_description: expect.stringMatching(description) });
    }
    expect(await server.prisma.app.count()).toBe(before);
  });

  it("its pushed request with openid and no nonce is 400 invalid_request; with a nonce, or without openid, it is accepted", async () => {
    const registered = (await register({ grant_types: ["authorization_code"] })).body;
    const refused = await push(registered.client_id, "openid aisp", { state: randomState() });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body).toEqual({ error: "invalid_request", error_description: "nonce is required for this client" });
    expect((await push(registered.client_id, "openid aisp", { nonce: randomState() })).status).toBe(201);
    expect((await push(registered.client_id, "aisp")).status).toBe(201);
  });

  it("a fapi2 client whose app does not say it (registered before require_nonce) is read as requiring one, and its update echoing that is accepted", async () => {
    const registered = (await register()).body;
    await server.prisma.app.updateMany({ where: { credentials: { some: { consumerKey: registered.client_id } } }, data: { requireNonce: false } });
    const read = (await configure(registered.registration_client_uri, registered.registration_access_token)).body;
    expect(read.require_nonce).toBe(true);
    const updated = await configure(registered.registration_client_uri, registered.registration_access_token, "PUT", read);
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.require_nonce).toBe(true);
    expect(await storedRequireNonce(registered.client_id)).toBe(true);
  });
});

describe("require_signed_request_object (RFC 9101 section 10.5)", () => {
  /** The App column the authorization endpoint and PAR read, of the client `clientId`. */
  async function storedRequirement(clientId: string): Promise<boolean> {
    const credential = await server.prisma.credential.findUniqueOrThrow({ where: { consumerKey: clientId }, select: { app: { select: { requireSignedRequestObject: true } } } });
    return credential.app.requireSignedRequestObject;
  }

  it("registered true: stored on the app, answered at registration and at a read; left out: false", async () => {
    const answer = await register({ grant_types: ["authorization_code"], require_signed_request_object: true });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.require_signed_request_object).toBe(true);
    expect(await storedRequirement(answer.body.client_id)).toBe(true);
    expect((await configure(answer.body.registration_client_uri, answer.body.registration_access_token)).body.require_signed_request_object).toBe(true);
    const plain = await register();
    expect(plain.body.require_signed_request_object).toBe(false);
    expect(await storedRequirement(plain.body.client_id)).toBe(false);
  });

  it("its pushed request without a request object is 400 invalid_request", async () => {
    const registered = (await register({ grant_types: ["authorization_code"], require_signed_request_object: true })).body;
    const refused = await postForm(server.url, PAR_ENDPOINT, {
      response_type: "code",
      redirect_uri: DEMO_SOFTWARE.redirectUri,
      scope: "aisp",
      code_challenge: pkcePair().challenge,
      code_challenge_method: "S256",
      ...(await assertionFields(server.url, {}, registered.client_id)),
    });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body).toMatchObject({ error: "invalid_request" });
  });

  it("anything but a boolean is 400 invalid_client_metadata naming it, and registers nothing", async () => {
    const before = await server.prisma.app.count();
    for (const value of ["true", 1, [true]]) {
      const answer = await register({ require_signed_request_object: value });
      expect(answer.status, String(value)).toBe(400);
      expect(answer.body).toEqual({ error: "invalid_client_metadata", error_description: "require_signed_request_object must be true or false" });
    }
    expect(await server.prisma.app.count()).toBe(before);
  });

  it("an RFC 7592 update turns it on and, left out, off again", async () => {
    const registered = (await register()).body;
    const uri = registered.registration_client_uri;
    const read = (await configure(uri, registered.registration_access_token)).body;
    const updated = await configure(uri, registered.registration_access_token, "PUT", { ...read, require_signed_request_object: true });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.require_signed_request_object).toBe(true);
    expect(await storedRequirement(registered.client_id)).toBe(true);
    const { require_signed_request_object: _jar, ...without } = read;
    const reset = await configure(uri, updated.body.registration_access_token, "PUT", without);
    expect(reset.status, reset.text).toBe(200);
    expect(reset.body.require_signed_request_object).toBe(false);
    expect(await storedRequirement(registered.client_id)).toBe(false);
  });
});

describe("with REGISTRATION_REQUIRES_APPROVAL", () => {
  let approving: TestServer;
  beforeAll(async () => {
    ({ server: approving } = await startIssuerServer({ REGISTRATION_REQUIRES_APPROVAL: "true" }));
  });
  afterAll(() => approving?.close());

  it("a registered client waits for an admin's approval before it gets tokens", async () => {
    const registered = (await register({}, () => approving.url)).body;
    const key = await DpopKey.generate();
    const token = () =>
      assertionFields(approving.url, {}, registered.client_id).then(async (fields) =>
        postForm(approving.url, TOKEN_ENDPOINT, { grant_type: "client_credentials", client_id: registered.client_id, ...fields }, { DPoP: await key.proof("POST", `${approving.url}${TOKEN_ENDPOINT}`) }),
      );
    const pending = await token();
    expect(pending.status).toBe(401);
    expect(pending.body).toMatchObject({ error: "invalid_client", error_description: "the app awaits the bank's approval" });

    const bank = await adminBearer(approving.url);
    const { apps } = await bank.data('query($s: String) { apps(filter: { search: $s, status: pending }) { nodes { id status } } }', { s: registered.client_id });
    expect(apps.nodes).toEqual([{ id: expect.any(String), status: "pending" }]);
    await bank.data('mutation($id: ID!) { setAppStatus(appId: $id, status: approved) { status } }', { id: apps.nodes[0].id });
    expect((await token()).status).toBe(200);
  });

  it("without OUTBOUND_ALLOW_PRIVATE_ADDRESSES (this server), a sector_identifier_uri on 127.0.0.1 is 400, refused before connecting", async () => {
    const answer = await register({ subject_type: "pairwise", sector_identifier_uri: `https://127.0.0.1:${await freePort()}/sector.json` }, () => approving.url);
    expect(answer.status, answer.text).toBe(400);
    expect(answer.body).toEqual({ error: "invalid_client_metadata", error_description: "sector_identifier_uri could not be fetched: 127.0.0.1 is an address this server may not connect to" });
  });
});
