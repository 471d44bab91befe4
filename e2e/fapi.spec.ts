/**
 * FAPI 2.0 journeys (issue 15), in Chromium against the built server:
 *
 * 1. the demo FAPI 2.0 app, as a TPP runs it: the test's Node side pushes the authorization
 *    request (PAR, RFC 9126) with private_key_jwt and PKCE S256, the browser opens
 *    /authorize with the request_uri, alice signs in and consents, the redirect to the app's
 *    callback is caught, and the Node side exchanges the code with a DPoP proof (RFC 9449)
 *    and calls the accounts API with the DPoP-bound token; then an admin sees the app's
 *    FAPI 2.0 profile, its key and the token's DPoP binding in the console;
 * 2. an admin registers signing keys for a new app in the console (a private key is
 *    refused and said why), switches it to FAPI 2.0 and rotates its key, and the token
 *    endpoint follows each change.
 *
 * The client side (client assertions, DPoP proofs, PAR, the code exchange) is that of the
 * HTTP suites, server/test/support/fapi.ts. Every page shown passes the accessibility checks.
 */
import { exportJWK, generateKeyPair, type CryptoKey, type JWK } from "jose";
import type { Page } from "@playwright/test";
import { DEMO } from "../server/src/demo/seed.js";
import { DEMO_FAPI_PRIVATE_JWK } from "../server/src/demo/fapi-key.js";
import { assertionFields, DpopKey, dpopCall, exchangeCode, postForm, pushedParams, pushRequest } from "../server/test/support/fapi.js";
import { expectAccessible } from "./support/accessibility.js";
import { AISP_PRODUCT, createAppInConsole, expectSampleAccounts, openAppTab, openConsolePage, panel, readTable, signInToConsole, uniqueName } from "./support/console.js";
import { TOLLGATE_URL } from "./support/env.js";
import { expect, test } from "./support/fixtures.js";
import { ALICE, expectConsentPage, expectLoginPage, s256, signIn } from "./support/journey.js";

const TOKEN_ENDPOINT = "/oauth2/v1/token";
/** A pushed request's request_uri (RFC 9126 §2.2: a URN of the server's choosing). */
const REQUEST_URI = /^urn:ietf:params:oauth:request_uri:[A-Za-z0-9_-]+$/;

/**
 * Answers the browser's requests to `callbackUrl` (the demo apps' callback, where no server
 * listens) with a small page, as the TPP's callback would.
 */
async function catchCallback(page: Page, callbackUrl: string): Promise<void> {
  await page.route(`${callbackUrl}**`, (route) =>
    route.fulfill({ status: 200, contentType: "text/html", body: '<!doctype html><html lang="en"><title>TPP callback</title><h1>Back at the TPP</h1></html>' }),
  );
}

/** Opens an app's page in the console, found by name on the Apps page. */
async function openAppPage(page: Page, name: string): Promise<void> {
  await openConsolePage(page, "Apps");
  await page.getByRole("searchbox", { name: "Search by name" }).fill(name);
  await page.getByRole("button", { name: "Search", exact: true }).click();
  await panel(page, "All apps").getByRole("link", { name, exact: true }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(name);
}

test("the FAPI 2.0 demo app: PAR with private_key_jwt, sign-in and consent, a DPoP-bound token at the gateway; the console shows FAPI 2.0, its key and the binding", { tag: "@postgresql" }, async ({ page }) => {
  // The TPP pushes its authorization request, authenticated with private_key_jwt.
  const verifier = `e2e-fapi-verifier-${Date.now()}-0123456789abcdefghijklmnopqrstuvwxyz`;
  const params = pushedParams(s256(verifier));
  const pushed = await pushRequest(TOLLGATE_URL, params);
  expect(pushed.status, pushed.text).toBe(201);
  expect(pushed.body.request_uri).toMatch(REQUEST_URI);
  expect(pushed.body.expires_in).toBe(60);

  // The browser goes to /authorize with the request_uri only; alice signs in and consents.
  await catchCallback(page, DEMO.callbackUrl);
  await page.goto(`/authorize?${new URLSearchParams({ client_id: DEMO.fapiApp.consumerKey, request_uri: pushed.body.request_uri })}`);
  await expectLoginPage(page, DEMO.fapiApp.name);
  await expectAccessible(page);
  await signIn(page, ALICE.username, ALICE.password);
  await expectConsentPage(page, DEMO.fapiApp.name);
  await expectAccessible(page);
  await page.getByRole("button", { name: "Allow" }).click();

  // Back at the TPP's callback with a code, the pushed state and Tollgate as issuer (RFC 9207).
  await page.waitForURL((url) => url.href.startsWith(`${DEMO.callbackUrl}?`));
  const callback = new URL(page.url()).searchParams;
  expect(callback.get("state")).toBe(params.state);
  expect(callback.get("iss")).toBe(TOLLGATE_URL);
  const code = callback.get("code");
  expect(code).toEqual(expect.any(String));

  // The code exchange: private_key_jwt and a DPoP proof; an RFC 6749 answer with a DPoP token.
  const key = await DpopKey.generate();
  const exchanged = await exchangeCode(TOLLGATE_URL, code!, verifier, key);
  expect(exchanged.status, exchanged.text).toBe(200);
  expect(Object.keys(exchanged.body).sort()).toEqual(["access_token", "expires_in", "refresh_token", "scope", "token_type"]);
  expect(exchanged.body.token_type).toBe("DPoP");
  expect(exchanged.body.scope).toBe("aisp");
  const accessToken: string = exchanged.body.access_token;

  // The accounts API through the gateway: with the proof (and its ath) 200; as a bearer token 401.
  const accounts = await dpopCall(TOLLGATE_URL, accessToken, key, "/accounts/");
  expect(accounts.status, accounts.text).toBe(200);
  expectSampleAccounts(accounts.body);
  expect(accounts.body.caller.clientId).toBe(DEMO.fapiApp.consumerKey);
  const balances = await dpopCall(TOLLGATE_URL, accessToken, key, "/accounts/acc-001/balances");
  expect(balances.status, balances.text).toBe(200);
  const asBearer = await fetch(`${TOLLGATE_URL}/accounts/`, { headers: { Authorization: `Bearer ${accessToken}` } });
  expect(asBearer.status).toBe(401);

  // In the console (alice signed out first): the app's FAPI 2.0 profile, its key and the token's binding.
  await page.context().clearCookies();
  await signInToConsole(page);
  await openAppPage(page, DEMO.fapiApp.name);
  await expect(panel(page, "Overview").getByText("FAPI 2.0", { exact: true })).toBeVisible();
  await openAppTab(page, "Security");
  await expect(panel(page, "Security profile").getByLabel("Security profile")).toHaveValue("fapi2");
  await expect(panel(page, "Client settings").getByText(/FAPI 2\.0 fixes the rest: client authentication with private_key_jwt or mutual TLS \(RFC 8705\) only/)).toBeVisible();
  const keys = await readTable(panel(page, "Signing keys").getByRole("table", { name: "Registered signing keys" }));
  expect(keys).toEqual([{ "Key ID (kid)": DEMO_FAPI_PRIVATE_JWK.kid, "Type (kty)": "EC P-256", "Algorithm (alg)": "ES256", Use: "sig" }]);
  await openAppTab(page, "Tokens");
  const tokens = await readTable(panel(page, "Live tokens of this app").getByRole("table"));
  expect(tokens).toContainEqual(expect.objectContaining({ User: ALICE.username, Grant: "authorization_code", Binding: `DPoP ${key.jkt.slice(0, 8)}…` }));
  await expectAccessible(page);
});

/** A new ES256 key pair named `kid`: the private key, and the public JWK to paste. */
async function signingKey(kid: string): Promise<{ privateKey: CryptoKey; publicJwk: JWK; privateJwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
  return { privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: "ES256" }, privateJwk: { ...(await exportJWK(privateKey)), kid, alg: "ES256" } };
}

/**
 * A client credentials request of `clientId`, authenticated by an assertion that `key`
 * signs, with a DPoP proof by `dpop`. support/fapi.ts types its `clientId` parameter by its
 * default, the demo app's id, though any client id works.
 */
async function assertionToken(clientId: string, key: { privateKey: CryptoKey; publicJwk: JWK }, dpop: DpopKey) {
  const assertion = await assertionFields(TOLLGATE_URL, { key: key.privateKey, header: { kid: key.publicJwk.kid } }, clientId);
  return postForm(TOLLGATE_URL, TOKEN_ENDPOINT, { grant_type: "client_credentials", scope: "aisp", ...assertion }, { DPoP: await dpop.proof("POST", `${TOLLGATE_URL}${TOKEN_ENDPOINT}`) });
}

test("an admin registers an app's signing keys, switches it to FAPI 2.0 and rotates its key; the token endpoint follows", async ({ page }) => {
  const name = uniqueName("E2E FAPI App");
  await signInToConsole(page);
  await openConsolePage(page, "Apps");
  const { consumerKey } = await createAppInConsole(page, { name, callbackUrls: ["https://e2e-fapi.example/callback"], productLabels: [AISP_PRODUCT.label] });
  await openAppPage(page, name);
  const overview = panel(page, "Overview");
  const profile = panel(page, "Security profile");
  const signing = panel(page, "Signing keys");
  await expect(overview.getByText("Standard", { exact: true })).toBeVisible();
  await openAppTab(page, "Security");
  await expect(signing.getByText("No signing keys are registered.")).toBeVisible();

  // The switch is confirmed first, after what it breaks; FAPI 2.0 needs keys: refused, and the console says why.
  await profile.getByLabel("Security profile").selectOption({ label: "FAPI 2.0" });
  await profile.getByRole("button", { name: "Save security profile" }).click();
  const consequences = profile.getByRole("list", { name: `What switching ${name} to FAPI 2.0 changes:` });
  await expect(consequences.getByRole("listitem").first()).toHaveText(/^The app's client secret stops working \(client_secret_basic\)/);
  await expect(consequences).toContainText("no registered public signing keys");
  await expect(consequences).toContainText("live access tokens stay valid until they expire");
  await expectAccessible(page);
  await profile.getByRole("button", { name: "Yes, switch to FAPI 2.0" }).click();
  await expect(profile.getByRole("alert")).toHaveText(/^Security profile: a fapi2 app authenticates with private_key_jwt, which needs the app's public signing keys/);
  await expect(profile.getByLabel("Security profile")).toHaveValue("fapi2");

  // A private key is refused by the server, and said why; nothing is registered.
  const first = await signingKey("e2e-first");
  await signing.getByLabel("JWK Set (JSON)").fill(JSON.stringify({ keys: [first.privateJwk] }));
  await signing.getByRole("button", { name: "Save signing keys" }).click();
  await expect(signing.getByRole("alert")).toHaveText("JWK Set: key 1 has a private member (d): send the public key only.");
  await expectAccessible(page);
  await expect(signing.getByText("No signing keys are registered.")).toBeVisible();

  // The public key is registered and listed; then FAPI 2.0 can be chosen.
  await signing.getByLabel("JWK Set (JSON)").fill(JSON.stringify({ keys: [first.publicJwk] }));
  await signing.getByRole("button", { name: "Save signing keys" }).click();
  await expect(signing.getByRole("status").filter({ hasText: "Signing keys registered." })).toBeVisible();
  expect(await readTable(signing.getByRole("table", { name: "Registered signing keys" }))).toEqual([
    { "Key ID (kid)": "e2e-first", "Type (kty)": "EC P-256", "Algorithm (alg)": "ES256", Use: "—" },
  ]);
  await profile.getByRole("button", { name: "Save security profile" }).click();
  await profile.getByRole("button", { name: "Yes, switch to FAPI 2.0" }).click();
  await expect(profile.getByRole("status").filter({ hasText: "FAPI 2.0 is on" })).toBeVisible();
  await expect(panel(page, "Client settings").getByText(/FAPI 2\.0 fixes the rest/)).toBeVisible();
  await expectAccessible(page);
  await openAppTab(page, "Overview");
  await expect(overview.getByText("FAPI 2.0", { exact: true })).toBeVisible();
  await openAppTab(page, "Security");

  // The token endpoint follows: the key signs the app's assertions, its tokens are DPoP-bound.
  const dpop = await DpopKey.generate();
  const issued = await assertionToken(consumerKey, first, dpop);
  expect(issued.status, issued.text).toBe(200);
  expect(issued.body.token_type).toBe("DPoP");

  // Rotation: a new key replaces the first at once.
  const second = await signingKey("e2e-second");
  await signing.getByLabel("JWK Set (JSON)").fill(JSON.stringify({ keys: [second.publicJwk] }));
  await signing.getByRole("button", { name: "Save signing keys" }).click();
  await expect(signing.getByRole("status").filter({ hasText: "Signing keys replaced" })).toBeVisible();
  expect((await readTable(signing.getByRole("table", { name: "Registered signing keys" }))).map((k) => k["Key ID (kid)"])).toEqual(["e2e-second"]);
  expect((await assertionToken(consumerKey, first, dpop)).status).toBe(401);
  expect((await assertionToken(consumerKey, second, dpop)).status).toBe(200);

  // Back to standard with the consumer secret: then the keys, no longer in use, can be removed.
  await expect(signing.getByRole("button", { name: "Remove keys" })).toHaveCount(0);
  await profile.getByLabel("Security profile").selectOption({ label: "Standard" });
  await profile.getByRole("button", { name: "Save security profile" }).click();
  await profile.getByRole("button", { name: "Yes, switch to Standard" }).click();
  await expect(profile.getByRole("status").filter({ hasText: "Standard profile is on." })).toBeVisible();
  const settings = panel(page, "Client settings");
  await expect(settings.getByRole("checkbox", { name: "Signed JWT (private_key_jwt)" })).toBeChecked();
  await settings.getByRole("checkbox", { name: "Signed JWT (private_key_jwt)" }).uncheck();
  await settings.getByRole("checkbox", { name: "HTTP Basic (client_secret_basic)" }).check();
  await settings.getByRole("button", { name: "Save client settings" }).click();
  await expect(settings.getByRole("status").filter({ hasText: "Client settings saved." })).toBeVisible();
  await signing.getByRole("button", { name: "Remove keys" }).click();
  await signing.getByRole("button", { name: "Yes, remove the keys" }).click();
  await expect(signing.getByRole("status").filter({ hasText: "Signing keys removed." })).toBeVisible();
  await expect(signing.getByText("No signing keys are registered.")).toBeVisible();
  await expectAccessible(page);
});
