/**
 * Client certificates behind a TLS-terminating proxy, against the running server: the proxy's
 * header (TLS_CLIENT_CERT_HEADER, trusted from 127.0.0.2 only) carries the TPP's certificate, and
 * the server checks it as it checks one from its own TLS listener: the CRLs of TLS_CLIENT_CRLS,
 * read again every CRL_RELOAD_SECONDS (rewritten on disk here), the clientAuth extended key usage,
 * and a PSD2 identity that holds together (ETSI TS 119 495 §5.2.1). Certificates come from the
 * test PKI (support/pki.ts).
 */
import { writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { signDemoSoftwareStatement } from "../src/demo/directory.js";
import { FORM, type Json } from "./support/flow.js";
import { adminBearer, type GraphQLClient } from "./support/graphql.js";
import { issueCrl, pemFolder, TEST_TPP, testPki, type PemFolder, type TestCertificate, type TestPki } from "./support/pki.js";
import { startTestServer, type TestServer } from "./support/server.js";

const PROXY_HEADER = "x-ssl-client-cert";
/** The address the tests' proxy connects from: any 127/8 address reaches the loopback listener. */
const PROXY_ADDRESS = "127.0.0.2";
const DAY = 86_400_000;

let pki: TestPki;
let folder: PemFolder | undefined;
let crlFile: string;
let server: TestServer;
let admin: GraphQLClient;
let clientId: string;

/** A request from the proxy's address carrying `certificate` in the proxy's header, as nginx's $ssl_client_escaped_cert. */
function viaProxy(pathname: string, certificate: TestCertificate, body: { type: string; text: string }): Promise<{ status: number; body: Json }> {
  return new Promise((resolve, reject) => {
    const url = new URL(pathname, server.url);
    const req = httpRequest(
      url,
      { method: "POST", localAddress: PROXY_ADDRESS, headers: { "content-type": body.type, [PROXY_HEADER]: encodeURIComponent(certificate.pem) } },
      (res) => {
        let text = "";
        res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode!, body: text === "" ? null : JSON.parse(text) }));
      },
    );
    req.once("error", reject).end(body.text);
  });
}

/** A client credentials token request of the tls_client_auth app, authenticated by `certificate` (RFC 8705 §2). */
const token = (certificate: TestCertificate) =>
  viaProxy("/oauth2/v1/token", certificate, { type: FORM, text: new URLSearchParams({ grant_type: "client_credentials", client_id: clientId }).toString() });

/** Retries `attempt` until `done` holds of its answer (for a reload to happen), at most `ms`; @returns the last answer. */
async function eventually<T>(attempt: () => Promise<T>, done: (answer: T) => boolean, ms = 8000): Promise<T> {
  const until = Date.now() + ms;
  let answer = await attempt();
  while (!done(answer) && Date.now() < until) {
    await sleep(200);
    answer = await attempt();
  }
  return answer;
}

/** The intermediate's CRL as the QTSP would publish it: issued a minute ago, next due at `nextUpdate`, listing `revoked`. */
async function publishCrl(nextUpdate: Date, revoked: TestCertificate[] = []): Promise<void> {
  const crl = await issueCrl({ issuer: pki.intermediate, thisUpdate: new Date(Date.now() - 60_000), nextUpdate, revoked: revoked.map((certificate) => ({ certificate })) });
  writeFileSync(crlFile, crl.pem);
}

beforeAll(async () => {
  pki = await testPki();
  folder = pemFolder("tollgate-certificates-");
  const { file } = folder;
  crlFile = file("intermediate.crl", "");
  await publishCrl(new Date(Date.now() + 7 * DAY));
  server = await startTestServer({
    TLS_CLIENT_CA: file("qtsp-ca.pem", pki.root.pem + pki.intermediate.pem),
    TLS_CLIENT_CRLS: [crlFile, file("root.crl", pki.rootCrl.pem)].join(","),
    CRL_RELOAD_SECONDS: "1",
    TLS_CLIENT_CERT_HEADER: PROXY_HEADER,
    TLS_CLIENT_CERT_PROXIES: PROXY_ADDRESS,
  });
  admin = await adminBearer(server.url);
  const { developers, apiProducts } = await admin.data("{ developers(first: 1) { nodes { id } } apiProducts { id name } }");
  const { createApp } = await admin.data("mutation($input: CreateAppInput!) { createApp(input: $input) { app { id } consumerKey } }", {
    input: { developerId: developers.nodes[0].id, name: "Example AISP (behind the proxy)", apiProductIds: [apiProducts.find((p: Json) => p.name === "PSD2-AISP-v1").id], callbackUrls: ["https://tpp.example/cb"] },
  });
  clientId = createApp.consumerKey;
  await admin.data("mutation($id: ID!, $input: AppSettingsInput!) { setAppSettings(appId: $id, input: $input) { id } }", {
    id: createApp.app.id,
    input: { tokenEndpointAuthMethods: ["tls_client_auth"], tlsClientAuth: { parameter: "tls_client_auth_subject_dn", value: TEST_TPP.aisp.subjectDn } },
  });
});

afterAll(async () => {
  await server?.close();
  folder?.remove();
});

describe("the CRLs of TLS_CLIENT_CRLS, read again every CRL_RELOAD_SECONDS", () => {
  it("takes each CRL the QTSP publishes; an expired one fails closed until a fresh one is there; a broken file keeps the last good one", async () => {
    expect((await token(pki.aisp)).status).toBe(200);

    // The next CRL is due in two seconds and none comes: past its nextUpdate, the CA's certificates are refused.
    await publishCrl(new Date(Date.now() + 2000));
    const expired = await eventually(() => token(pki.aisp), (a) => a.status === 401);
    expect(expired.body).toMatchObject({ error: "invalid_client", error_description: "the client certificate is not trusted (crl_expired)" });

    // A fresh CRL: accepted again, without a restart.
    await publishCrl(new Date(Date.now() + 7 * DAY));
    expect((await eventually(() => token(pki.aisp), (a) => a.status === 200)).status).toBe(200);

    // The QTSP revokes the certificate.
    await publishCrl(new Date(Date.now() + 7 * DAY), [pki.aisp]);
    const revoked = await eventually(() => token(pki.aisp), (a) => a.status === 401);
    expect(revoked.body).toMatchObject({ error: "invalid_client", error_description: "the client certificate is not trusted (revoked)" });

    // A broken file: logged, and the last good CRL (the revocation) still counts.
    const logged = vi.spyOn(server.logger, "error");
    writeFileSync(crlFile, "-----BEGIN X509 CRL-----\nnot a CRL\n-----END X509 CRL-----\n");
    await eventually(async () => logged.mock.calls.length, (n) => n > 0, 4000);
    expect(logged.mock.calls[0]![0]).toMatchObject({ file: crlFile });
    expect((await token(pki.aisp)).body.error_description).toBe("the client certificate is not trusted (revoked)");
    logged.mockRestore();
    await publishCrl(new Date(Date.now() + 7 * DAY));
    expect((await eventually(() => token(pki.aisp), (a) => a.status === 200)).status).toBe(200);
  });
});

describe("a certificate forwarded by the proxy is checked as one from the TLS listener", () => {
  it("refuses one whose extendedKeyUsage does not allow TLS client authentication (id-kp-clientAuth)", async () => {
    const answer = await token(pki.serverAuthOnly);
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ error: "invalid_client", error_description: "the client certificate is not trusted (not_for_client_auth)" });
  });

  it("refuses a QWAC whose organizationIdentifier names another NCA than its PSD2 statement, at the token and registration endpoints", async () => {
    const refused = await token(pki.ncaMismatch);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: "invalid_client", error_description: "the client certificate is not trusted (psd2_identity_mismatch)" });
    const registration = JSON.stringify({ software_statement: await signDemoSoftwareStatement(), token_endpoint_auth_method: "private_key_jwt", grant_types: ["client_credentials"] });
    const registered = await viaProxy("/oauth2/v1/register", pki.ncaMismatch, { type: "application/json", text: registration });
    expect(registered.status).toBe(401);
    expect(registered.body).toMatchObject({ error: "invalid_client", error_description: "the TLS client certificate is not trusted (psd2_identity_mismatch)" });
    // The same registration with a consistent QWAC is accepted.
    expect((await viaProxy("/oauth2/v1/register", pki.aisp, { type: "application/json", text: registration })).status).toBe(201);
  });
});
