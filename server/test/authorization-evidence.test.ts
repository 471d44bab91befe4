/**
 * Evidence of signed authorization requests and responses (FAPI 2.0 Message Signing:
 * non-repudiation) on a real server: a request object a TPP signed (RFC 9101) and the
 * authorization response this server signed (JARM) are kept with the consent the PSU
 * answered, byte for byte as they were sent, and read back through the admin API; nothing is
 * kept for an unsigned exchange or before a PSU signed in.
 */
import { randomUUID } from "node:crypto";
import * as oauth from "oauth4webapi";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { DEMO_FAPI_PUBLIC_JWKS } from "../src/demo/fapi-key.js";
import { DEMO_ACCOUNTS } from "../src/demo/upstream.js";
import { FAPI_CLIENT_ID, demoClientKey } from "./support/fapi.js";
import { adminBearer, type GraphQLClient } from "./support/graphql.js";
import { clientFor, clientOptions, prepareAuthorization, pushedAuthorizationUrl, runBrowserStep, startIssuerServer } from "./support/oauth4webapi.js";
import type { TestServer } from "./support/server.js";

let server: TestServer;
let as: oauth.AuthorizationServer;
let admin: GraphQLClient;
const fapi: oauth.Client = { client_id: FAPI_CLIENT_ID, token_endpoint_auth_method: "private_key_jwt" };
let auth: oauth.ClientAuth;
const strict = clientFor(DEMO.strictApp);

beforeAll(async () => {
  let issuer: URL;
  ({ server, issuer } = await startIssuerServer());
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...clientOptions }));
  auth = oauth.PrivateKeyJwt({ key: await demoClientKey(), kid: "demo-fapi-2026" });
  admin = await adminBearer(server.url);
  // The strict demo app (standard profile) registers the demo key too, to send request objects by value to /authorize.
  await server.prisma.app.updateMany({ where: { name: DEMO.strictApp.name }, data: { jwks: JSON.stringify(DEMO_FAPI_PUBLIC_JWKS) } });
});
afterAll(() => server?.close());

const EVIDENCE = "evidence { answeredAt clientId outcome requestObject authorizationResponse }";

/** A payment from the PSU's main account, which needs no choice at the consent page. */
const payment = () => [
  {
    type: "payment_initiation",
    instructedAmount: { currency: "EUR", amount: "1250.00" },
    creditorName: "ACME GmbH",
    creditorAccount: { iban: "FR1420041010050500013M02606" },
    debtorAccount: { iban: DEMO_ACCOUNTS[0]!.iban },
  },
];

/** A request object of `client` signed with the demo key, holding `parameters`. */
async function requestObject(client: oauth.Client, parameters: Record<string, string>): Promise<string> {
  return oauth.issueRequestObject(as, client, parameters, { key: await demoClientKey(), kid: "demo-fapi-2026" });
}

/** The code flow's parameters, with a fresh state and PKCE challenge. */
async function codeFlow(extra: Record<string, string>): Promise<Record<string, string>> {
  const challenge = await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier());
  return { response_type: "code", redirect_uri: DEMO.callbackUrl, state: randomUUID(), code_challenge: challenge, code_challenge_method: "S256", ...extra };
}

/** The PSD2 consent a pushed request's sign-in created: the newest of the FAPI app. */
async function newestConsentOf(clientId: string): Promise<string> {
  const { psd2Consents } = await admin.data<{ psd2Consents: { id: string }[] }>("query($c: String) { psd2Consents(clientId: $c) { id } }", { c: clientId });
  return psd2Consents[0]!.id;
}

async function psd2Evidence(id: string) {
  return (await admin.data(`query($id: ID!) { psd2Consent(id: $id) { id status ${EVIDENCE} } }`, { id })).psd2Consent;
}

describe("evidence of a PSD2 consent authorized with a pushed request object and a signed response (FAPI 2.0 Message Signing)", () => {
  it("keeps the request object as pushed and the response as sent, with outcome code", async () => {
    const signed = await requestObject(fapi, await codeFlow({ response_mode: "jwt", authorization_details: JSON.stringify(payment()) }));
    const callback = await runBrowserStep(await pushedAuthorizationUrl(as, fapi, auth, { request: signed }));
    const response = callback.searchParams.get("response")!;
    expect(response).toBeTruthy();

    const consent = await psd2Evidence(await newestConsentOf(FAPI_CLIENT_ID));
    expect(consent.status).toBe("valid");
    expect(consent.evidence).toEqual([{ answeredAt: expect.any(String), clientId: FAPI_CLIENT_ID, outcome: "code", requestObject: signed, authorizationResponse: response }]);
    expect(Math.abs(Date.parse(consent.evidence[0].answeredAt) - Date.now())).toBeLessThan(60_000);
  });

  it("keeps a denial too: the PSU's access_denied, signed, with the rejected consent", async () => {
    const signed = await requestObject(fapi, await codeFlow({ response_mode: "jwt", authorization_details: JSON.stringify(payment()) }));
    const callback = await runBrowserStep(await pushedAuthorizationUrl(as, fapi, auth, { request: signed }), { approve: false });
    const consent = await psd2Evidence(await newestConsentOf(FAPI_CLIENT_ID));
    expect(consent.status).toBe("rejected");
    expect(consent.evidence).toMatchObject([{ outcome: "access_denied", requestObject: signed, authorizationResponse: callback.searchParams.get("response") }]);
  });

  it("answers null for an unknown consent id", async () => {
    expect((await admin.data('{ psd2Consent(id: "no-such-consent") { id } }')).psd2Consent).toBeNull();
  });
});

describe("evidence of a scope consent", () => {
  /** The strict app's consent of alice, with its evidence. */
  async function scopeConsent() {
    const { consents } = await admin.data(`query($u: ID) { consents(userId: $u) { id app { name } ${EVIDENCE} } }`, {
      u: (await server.prisma.user.findUniqueOrThrow({ where: { username: DEMO.user.username } })).id,
    });
    return (consents as { id: string; app: { name: string }; evidence: unknown[] }[]).find((c) => c.app.name === DEMO.strictApp.name);
  }

  it("a request object by value at /authorize answered in the query: the request is kept, the response was not signed", async () => {
    const before = (await scopeConsent())?.evidence.length ?? 0;
    const signed = await requestObject(strict.client, await codeFlow({ scope: "aisp", prompt: "consent" }));
    const url = new URL(as.authorization_endpoint!);
    url.searchParams.set("client_id", strict.client.client_id);
    url.searchParams.set("request", signed);
    const callback = await runBrowserStep(url);
    expect(callback.searchParams.get("code")).toBeTruthy();
    const consent = await scopeConsent();
    expect(consent!.evidence).toHaveLength(before + 1);
    expect(consent!.evidence.at(-1)).toMatchObject({ clientId: DEMO.strictApp.consumerKey, outcome: "code", requestObject: signed, authorizationResponse: null });
    const byId = (await admin.data(`query($id: ID!) { consent(id: $id) { id revokedAt ${EVIDENCE} } }`, { id: consent!.id })).consent;
    expect(byId).toEqual({ id: consent!.id, revokedAt: null, evidence: consent!.evidence });
    expect((await admin.data('{ consent(id: "no-such-consent") { id } }')).consent).toBeNull();
  });

  it("keeps nothing for an unsigned request answered unsigned", async () => {
    const before = await server.prisma.authorizationEvidence.count();
    const { url } = await prepareAuthorization(as, strict.client, "aisp", { prompt: "consent" });
    expect((await runBrowserStep(url)).searchParams.get("code")).toBeTruthy();
    expect(await server.prisma.authorizationEvidence.count()).toBe(before);
  });

  it("keeps nothing for a request refused before anyone signed in, even when its error is signed", async () => {
    const before = await server.prisma.authorizationEvidence.count();
    const { url } = await prepareAuthorization(as, strict.client, "no-such-scope", { response_mode: "jwt" });
    const callback = await runBrowserStep(url);
    expect([...callback.searchParams.keys()]).toEqual(["response"]);
    expect(await server.prisma.authorizationEvidence.count()).toBe(before);
  });
});
