/**
 * The TPP-text class of the hostile suite: text a TPP writes and the PSU is shown (a payee's
 * name and remittance information, the app's and organization's names) cannot carry the
 * characters that reorder, hide or break what the PSU reads — bidirectional embeddings,
 * overrides, isolates and marks, zero-width characters, the rest of `\p{Cf}`, controls and
 * line separators (kernel/text.ts `isDisplayText`; the "Trojan Source" class,
 * CVE-2021-42574). Each door is tried with each character: RFC 9396 authorization details at
 * PAR and at /authorize, the Berlin Group payment resource, dynamic registration (RFC 7591)
 * and its update (RFC 7592), and the software statement's names. Each refusal is the door's
 * own error, echoes none of the characters, and leaves nothing behind; text in right-to-left
 * letters, which the pages isolate (`<bdi>`), is accepted and reaches the consent page as sent.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_SOFTWARE } from "../src/demo/directory.js";
import { DEMO } from "../src/demo/seed.js";
import { authorizeParams, authorizePath, Browser, callbackParams, clientCredentialsToken, expectOAuthError, interactionIdFrom, json, pkcePair, send, tokenRequest, type Json } from "./support/flow.js";
import { RFC6749_DESCRIPTION, runs } from "./support/hostile.js";
import { startIssuerServer } from "./support/oauth4webapi.js";
import { newSoftwareStatement } from "./support/registration.js";
import type { TestServer } from "./support/server.js";

const PAR = "/oauth2/v1/par";
const REGISTER = "/oauth2/v1/register";
const BG_PAYMENTS = "/psd2/v1/payments/sepa-credit-transfers";
const client = DEMO.strictApp;
const CREDITOR = "FR1420041010050500013M02606";

/** Characters that restyle a line without showing, one of each kind. */
const HIDDEN: readonly [string, string][] = [
  ["a right-to-left override (U+202E)", "\u202e"],
  ["a left-to-right override (U+202D)", "\u202d"],
  ["a right-to-left embedding (U+202B)", "\u202b"],
  ["a left-to-right embedding (U+202A)", "\u202a"],
  ["a pop directional formatting (U+202C)", "\u202c"],
  ["a left-to-right isolate (U+2066)", "\u2066"],
  ["a right-to-left isolate (U+2067)", "\u2067"],
  ["a first-strong isolate (U+2068)", "\u2068"],
  ["a pop directional isolate (U+2069)", "\u2069"],
  ["an Arabic letter mark (U+061C)", "\u061c"],
  ["a zero-width space (U+200B)", "\u200b"],
  ["a zero-width non-joiner (U+200C)", "\u200c"],
  ["a zero-width joiner (U+200D)", "\u200d"],
  ["a left-to-right mark (U+200E)", "\u200e"],
  ["a right-to-left mark (U+200F)", "\u200f"],
  ["a soft hyphen (U+00AD)", "\u00ad"],
  ["a word joiner (U+2060)", "\u2060"],
  ["a byte order mark (U+FEFF)", "\ufeff"],
  ["a tag character (U+E0001, outside the BMP)", "\u{e0001}"],
  ["a line separator (U+2028)", "\u2028"],
  ["a line feed", "\n"],
];

/** Every character of the classes refused, from this runtime's Unicode tables (about 240). */
const EVERY_HIDDEN: readonly string[] = (() => {
  const found: string[] = [];
  for (let c = 0; c <= 0x10ffff; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const s = String.fromCodePoint(c);
    if (/[\p{Cf}\p{Cc}\p{Zl}\p{Zp}]/u.test(s)) found.push(s);
  }
  return found;
})();

/** A payee name made to read as another IBAN once `c` reorders it. */
const payeeWith = (c: string) => `ACME GmbH${c} (FR76 3000 6000 0112 3456 7890 189)`;
/** Hebrew "company ltd.": right-to-left letters, no control character. */
const HEBREW_NAME = "\u05d7\u05d1\u05e8\u05d4 \u05d1\u05e2\u05f4\u05de";

const payment = (more: Json = {}) => ({
  type: "payment_initiation",
  instructedAmount: { currency: "EUR", amount: "10.00" },
  creditorName: "ACME GmbH",
  creditorAccount: { iban: CREDITOR },
  remittanceInformationUnstructured: "Invoice 4711",
  ...more,
});

let server: TestServer;

beforeAll(async () => {
  // The real address as BASE_URL: the registration's client URI and the statements need it.
  ({ server } = await startIssuerServer());
});
afterAll(() => server?.close());

/** Nothing of `text` beyond printable ASCII: the refusal echoes none of the characters. */
function expectPlain(text: string, what: string): void {
  expect(text, what).toMatch(RFC6749_DESCRIPTION);
}

function pkceParams(): Record<string, string> {
  return { code_challenge: pkcePair().challenge, code_challenge_method: "S256" };
}

/** A pushed authorization request of the strict app (client_secret_basic) with `details`. */
function push(details: string) {
  return tokenRequest(server.url, PAR, client, { ...authorizeParams(client, { scope: undefined, ...pkceParams() }), authorization_details: details } as Record<string, string>);
}

/** The counts of the rows a refused request must not leave. */
async function rows() {
  const p = server.prisma;
  const [consents, pushed, interactions, apps, organizations] = await Promise.all([
    p.psd2Consent.count(),
    p.pushedAuthorizationRequest.count(),
    p.interaction.count(),
    p.app.count(),
    p.organization.count(),
  ]);
  return { consents, pushed, interactions, apps, organizations };
}

describe("RFC 9396 authorization details (PAR and /authorize)", () => {
  it.each(HIDDEN)("refuses a creditor name or remittance information with %s at PAR: 400 invalid_authorization_details, nothing stored", async (_what, c) => {
    const before = await rows();
    for (const [member, details] of [
      ["creditorName", [payment({ creditorName: payeeWith(c) })]],
      ["remittanceInformationUnstructured", [payment({ remittanceInformationUnstructured: `Invoice 4711${c}IBAN FR76 3000` })]],
    ] as const) {
      const refused = await push(JSON.stringify(details));
      const body = await expectOAuthError(refused, 400, "invalid_authorization_details");
      expect(body.error_description).toBe(`authorization_details[0].${member} must be text without control or invisible characters (such as bidirectional overrides)`);
    }
    expect(await rows()).toEqual(before);
  });

  it("refuses the characters written as JSON escapes too (the check reads the decoded text)", async () => {
    const escaped = JSON.stringify([payment()]).replace('"ACME GmbH"', '"ACME\\u202eGmbH"');
    expect(escaped).toContain("\\u202e");
    await expectOAuthError(await push(escaped), 400, "invalid_authorization_details");
  });

  it.each(HIDDEN)("refuses a creditor name with %s at /authorize: back to the client with invalid_authorization_details, before any sign-in", async (_what, c) => {
    const before = await rows();
    const browser = new Browser(server.url);
    const res = await browser.fetch(authorizePath(authorizeParams(client, { scope: undefined, authorization_details: JSON.stringify([payment({ creditorName: payeeWith(c) })]), ...pkceParams() })));
    expect(res.status).toBe(302);
    const callback = callbackParams(res.headers.get("location"));
    expect(callback.error).toBe("invalid_authorization_details");
    expectPlain(callback.error_description ?? "", "error_description");
    expect(await rows()).toEqual(before);
  });

  it("refuses any refused character anywhere in a payee name at PAR (property, every character of the classes)", async () => {
    const name = fc.string({ unit: fc.constantFrom(..."ACME GmbH & Söhne 0123456789-"), minLength: 0, maxLength: 30 });
    await fc.assert(
      fc.asyncProperty(name, fc.constantFrom(...EVERY_HIDDEN), name, async (left, c, right) => {
        const refused = await push(JSON.stringify([payment({ creditorName: `${left}${c}${right}` })]));
        expect(refused.status, refused.text).toBe(400);
        expect(refused.body.error).toBe("invalid_authorization_details");
        expectPlain(refused.body.error_description, "error_description");
      }),
      runs(60),
    );
  });

  it("accepts a payee name and a reference in right-to-left letters: the consent page receives them exactly as sent", async () => {
    const details = [payment({ creditorName: HEBREW_NAME, remittanceInformationUnstructured: `\u0641\u0627\u062a\u0648\u0631\u0629 4711` })];
    const pushed = await push(JSON.stringify(details));
    expect(pushed.status, pushed.text).toBe(201);
    const browser = new Browser(server.url);
    const start = await browser.fetch(`/authorize?client_id=${client.consumerKey}&request_uri=${encodeURIComponent(pushed.body.request_uri)}`);
    expect(start.status).toBe(302);
    const view = await json(await browser.fetch(`/interaction/${interactionIdFrom(start.headers.get("location"))}`));
    expect(view.authorizationDetails).toEqual(details);
  });
});

describe("the Berlin Group payment resource", () => {
  function initiate(token: string, body: Json) {
    return send(`${server.url}${BG_PAYMENTS}`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify(body) });
  }
  const paymentBody = (more: Json = {}) => {
    const { type: _type, ...body } = payment(more);
    return body;
  };

  it.each(HIDDEN)("refuses a creditor name or remittance information with %s: 400 FORMAT_ERROR, no payment resource", async (_what, c) => {
    const tpp = await clientCredentialsToken(server.url, client);
    const before = await rows();
    for (const [member, body] of [
      ["creditorName", paymentBody({ creditorName: payeeWith(c) })],
      ["remittanceInformationUnstructured", paymentBody({ remittanceInformationUnstructured: `Invoice${c} 4711` })],
    ] as const) {
      const refused = await initiate(tpp, body);
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body).toEqual({
        tppMessages: [{ category: "ERROR", code: "FORMAT_ERROR", text: `body.${member} must be text without control or invisible characters (such as bidirectional overrides)` }],
      });
    }
    expect(await rows()).toEqual(before);
  });

  it("accepts a payee name in right-to-left letters and keeps it as sent", async () => {
    const tpp = await clientCredentialsToken(server.url, client);
    const created = await initiate(tpp, paymentBody({ creditorName: HEBREW_NAME }));
    expect(created.status, created.text).toBe(201);
    const read = await send(`${server.url}${BG_PAYMENTS}/${created.body.paymentId}`, { headers: { Authorization: `Bearer ${tpp}` } });
    expect(read.body.creditorName).toBe(HEBREW_NAME);
  });
});

describe("dynamic client registration: the app's and organization's names", () => {
  /** A registration request (RFC 7591) with a demo statement of `claims` and the request `members`. */
  async function register(members: Json = {}, claims: Json = {}) {
    return send(`${server.url}${REGISTER}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ software_statement: await newSoftwareStatement({ claims }), token_endpoint_auth_method: "private_key_jwt", grant_types: ["client_credentials"], ...members }),
    });
  }
  /** The statement without a client name: the request's client_name is the app's. */
  const UNNAMED = { software_client_name: undefined };

  it.each(HIDDEN)("refuses a client_name, software_client_name, org_name, software_id or org_id with %s; registers nothing", async (_what, c) => {
    const before = await rows();
    const cases: [string, Json, Json, string][] = [
      ["client_name", { client_name: `Budget${c} Buddy` }, UNNAMED, "invalid_client_metadata"],
      ["software_client_name", {}, { software_client_name: `Budget${c} Buddy` }, "invalid_software_statement"],
      ["org_name", {}, { org_name: `Acme${c} Bank` }, "invalid_software_statement"],
      ["software_id", {}, { software_id: `${DEMO_SOFTWARE.softwareId}${c}`, software_client_name: undefined }, "invalid_software_statement"],
      ["org_id", {}, { org_id: `org${c}-1`, org_name: undefined }, "invalid_software_statement"],
    ];
    for (const [member, members, claims, error] of cases) {
      const refused = await register(members, claims);
      expect(refused.status, `${member}: ${refused.text}`).toBe(400);
      expect(refused.body.error, member).toBe(error);
      expect(refused.body.error_description, member).toMatch(new RegExp(`${member} must be text without control or invisible characters`));
      expectPlain(refused.body.error_description, member);
    }
    expect(await rows()).toEqual(before);
  });

  it("refuses such a client_name in an update (RFC 7592) and keeps the registered name", async () => {
    const registered = await register({ client_name: "Budget Buddy" }, UNNAMED);
    expect(registered.status, registered.text).toBe(201);
    const { registration_client_uri: uri, registration_access_token: token, client_id: clientId } = registered.body;
    const read = await send(uri, { headers: { Authorization: `Bearer ${token}` } });
    const update = (name: string, bearer: string) =>
      send(uri, { method: "PUT", headers: { Authorization: `Bearer ${bearer}`, "Content-Type": "application/json" }, body: JSON.stringify({ ...read.body, client_id: clientId, client_name: name }) });
    const refused = await update("Budget \u202eBuddy", token);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error).toBe("invalid_client_metadata");
    const app = await server.prisma.credential.findUniqueOrThrow({ where: { consumerKey: clientId }, select: { app: { select: { name: true } } } });
    expect(app.app.name.startsWith("Budget Buddy")).toBe(true);
    // The same update with a clean name goes through: the refusal was about the character.
    expect((await update("Budget Buddy 2", token)).status).toBe(200);
  });

  it("registers an app named in right-to-left letters, named as sent", async () => {
    const registered = await register({ client_name: HEBREW_NAME }, UNNAMED);
    expect(registered.status, registered.text).toBe(201);
    expect(registered.body.client_name).toBe(HEBREW_NAME);
  });
});
