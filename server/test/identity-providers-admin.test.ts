/**
 * HTTP suite for the bank's identity providers in the admin API (server/src/admin/resolvers/identity-providers.ts):
 * their creation, listing, change and deletion with every input refused as BAD_USER_INPUT (or
 * CONFLICT for a taken name), never a 5xx; the client secret never returned, nor audited, and
 * stored sealed for the provider's id under the key-encryption key; the audit events; an app's
 * and an API product's identity provider set and removed, seen at once by the client lookups
 * (the catalog cache), and cleared by the provider's deletion; a caller who is not an admin
 * refused. A real server with the demo seed and a catalog cache that keeps entries for a minute;
 * nothing is fetched from a provider here.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { loadKeyEncryption } from "../src/kernel/key-encryption.js";
import { AUDIT_REQUEST_FIELDS, type Json } from "./support/flow.js";
import { adminBearer, anonymous, signIn, withSession, type GraphQLClient } from "./support/graphql.js";
import { startTestServer, type TestServer } from "./support/server.js";

const FIELDS = `id name issuer clientId clientAuthMethod scopes customerNumberClaim scaAcrValues hasClientSecret redirectUri jwksUri
  apps { id name } apiProducts { id name } createdAt updatedAt`;
const CREATE = `mutation($input: CreateIdentityProviderInput!) { createIdentityProvider(input: $input) { ${FIELDS} } }`;
const UPDATE = `mutation($id: ID!, $input: UpdateIdentityProviderInput!) { updateIdentityProvider(id: $id, input: $input) { ${FIELDS} } }`;
const DELETE = "mutation($id: ID!) { deleteIdentityProvider(id: $id) }";
const LIST = `{ identityProviders { ${FIELDS} } }`;
const ONE = `query($id: ID!) { identityProvider(id: $id) { ${FIELDS} } }`;
const SET_APP = "mutation($id: ID!, $input: AppSettingsInput!) { setAppSettings(appId: $id, input: $input) { id identityProvider { id name } } }";
const APP = "query($id: ID!) { app(id: $id) { id identityProvider { id name issuer } } }";
const CREATE_PRODUCT = "mutation($input: CreateApiProductInput!) { createApiProduct(input: $input) { id name identityProvider { id name } } }";
const UPDATE_PRODUCT = "mutation($id: ID!, $input: UpdateApiProductInput!) { updateApiProduct(id: $id, input: $input) { id identityProvider { id name } } }";
const PRODUCTS = "{ apiProducts { id name identityProvider { id name } } }";

/** The loopback issuer the providers here name: nothing is fetched from it on create. */
const ISSUER = "http://127.0.0.1:9/";

let server: TestServer;
let admin: GraphQLClient;
/** The demo app's id. */
let appId: string;

beforeAll(async () => {
  // A catalog cache that keeps its entries for a minute: only its emptying by a write shows a change "at once".
  server = await startTestServer({ CATALOG_CACHE_TTL_MS: "60000" });
  admin = await adminBearer(server.url);
  appId = (await server.prisma.app.findFirstOrThrow({ where: { name: DEMO.app.name } })).id;
});
afterAll(() => server?.close());

/** A fresh provider name. */
const uniqueName = (prefix: string) => `${prefix} ${randomBytes(3).toString("hex")}`;

/** A valid CreateIdentityProviderInput with `extra` over it. */
const input = (extra: Record<string, unknown> = {}) => ({ name: uniqueName("Bank IdP"), issuer: ISSUER, clientId: "tollgate", clientAuthMethod: "private_key_jwt", ...extra });

/** Creates a provider; @returns it as the API answers. */
async function create(extra: Record<string, unknown> = {}): Promise<Json> {
  return (await admin.data(CREATE, { input: input(extra) })).createIdentityProvider;
}

/** The admin.<type> audit events about `subject`, oldest first. */
const events = (type: string, subject?: string) => server.prisma.auditEvent.findMany({ where: { type: `admin.${type}`, ...(subject ? { subject } : {}) }, orderBy: { at: "asc" } });

/** The provider's stored row. */
const row = (id: string) => server.prisma.identityProvider.findUniqueOrThrow({ where: { id } });

/** The client secret a stored (sealed) value opens to, for the provider `id`. */
function opened(sealed: string, id: string): string {
  return loadKeyEncryption(server.kekFile, false).encryption.open(sealed, `identity-provider:${id}`).toString("utf8");
}

/** Expects BAD_USER_INPUT naming `field`, with status 200 (a resolver's refusal) unless told. */
async function expectRefused(query: string, variables: Record<string, unknown>, field: string, status = 200): Promise<string> {
  const failure = await admin.failure(query, variables);
  expect(failure.code, `${failure.message} for ${JSON.stringify(variables)}`).toBe("BAD_USER_INPUT");
  expect(failure.status, failure.message).toBe(status);
  if (status === 200) expect(failure.message, JSON.stringify(variables)).toMatch(new RegExp(`^${field}(\\.\\d+)?: `));
  return failure.message;
}

describe("createIdentityProvider", () => {
  it("adds a private_key_jwt provider with the defaults, Tollgate's redirect URI and JWK Set URL, and audits it", async () => {
    const name = uniqueName("Hausbank");
    const provider = await create({ name });
    expect(provider).toMatchObject({
      name,
      issuer: ISSUER,
      clientId: "tollgate",
      clientAuthMethod: "private_key_jwt",
      scopes: ["openid"],
      customerNumberClaim: null,
      scaAcrValues: [],
      hasClientSecret: false,
      redirectUri: `${server.authUrl}/federation/callback`,
      jwksUri: `${server.authUrl}/oauth2/v1/jwks`,
      apps: [],
      apiProducts: [],
    });
    expect(Date.now() - Date.parse(provider.createdAt)).toBeLessThan(60_000);
    expect(await row(provider.id)).toMatchObject({ name, clientSecret: null, scopes: "openid", scaAcrValues: "" });

    const [event, ...more] = await events("createIdentityProvider", provider.id);
    expect(more).toEqual([]);
    expect(event).toMatchObject({ actor: `client:${DEMO.adminApp.consumerKey}` });
    expect(JSON.parse(event!.details)).toEqual({ args: { input: input({ name }) }, ...AUDIT_REQUEST_FIELDS });
  });

  it("adds a client_secret_basic provider: the secret is stored sealed for its id, never returned and never audited", async () => {
    const secret = `bank-issued-secret-${randomBytes(12).toString("hex")}`;
    const name = uniqueName("Secret Bank");
    const answer = await admin.post(CREATE, {
      input: input({ name, clientAuthMethod: "client_secret_basic", clientSecret: secret, scopes: ["profile", "openid", "accounts"], customerNumberClaim: "customer_number", scaAcrValues: ["urn:bank:sca", "level4"] }),
    });
    expect(answer.body.errors, answer.text).toBeUndefined();
    const provider = answer.body.data.createIdentityProvider;
    expect(provider).toMatchObject({
      name,
      clientAuthMethod: "client_secret_basic",
      hasClientSecret: true,
      scopes: ["openid", "profile", "accounts"],
      customerNumberClaim: "customer_number",
      scaAcrValues: ["urn:bank:sca", "level4"],
    });
    expect(answer.text).not.toContain(secret);

    const stored = (await row(provider.id)).clientSecret!;
    expect(stored.startsWith("kek1.")).toBe(true);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(Buffer.from(secret).toString("base64url"));
    expect(opened(stored, provider.id)).toBe(secret);
    // Sealed for this provider: it does not open as another's.
    expect(() => opened(stored, "another-provider")).toThrow();

    // No answer carries it, nor its sealed form; there is no field to ask for it.
    for (const text of [JSON.stringify(await admin.data(LIST)), JSON.stringify(await admin.data(ONE, { id: provider.id }))]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(stored);
    }
    const asked = await admin.failure("query($id: ID!) { identityProvider(id: $id) { clientSecret } }", { id: provider.id });
    expect([asked.status, asked.code]).toEqual([400, "GRAPHQL_VALIDATION_FAILED"]);

    const [event] = await events("createIdentityProvider", provider.id);
    expect(JSON.parse(event!.details).args.input.clientSecret).toBe("[redacted]");
    expect(JSON.stringify(await server.prisma.auditEvent.findMany())).not.toContain(secret);
  });

  it("refuses each invalid field (BAD_USER_INPUT naming it), creating and recording nothing", async () => {
    const providers = await server.prisma.identityProvider.count();
    const audited = (await events("createIdentityProvider")).length;
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ name: "" }, "name"],
      [{ name: "   " }, "name"],
      [{ name: "x".repeat(65) }, "name"],
      [{ name: "Bank/IdP" }, "name"],
      [{ name: "Bank <script>" }, "name"],
      [{ name: "Bänk" }, "name"],
      [{ issuer: "" }, "issuer"],
      [{ issuer: "not a url" }, "issuer"],
      [{ issuer: "idp.bank.example" }, "issuer"],
      [{ issuer: "http://idp.bank.example" }, "issuer"],
      [{ issuer: "ftp://idp.bank.example" }, "issuer"],
      [{ issuer: "https://idp.bank.example/?tenant=1" }, "issuer"],
      [{ issuer: "https://idp.bank.example/#x" }, "issuer"],
      [{ issuer: "https://user:pass@idp.bank.example" }, "issuer"],
      [{ issuer: "https://idp.bank.example/ realm" }, "issuer"],
      [{ issuer: "http://169.254.169.254/" }, "issuer"],
      [{ issuer: `https://idp.bank.example/${"x".repeat(2000)}` }, "issuer"],
      [{ clientId: "" }, "clientId"],
      [{ clientId: "x".repeat(256) }, "clientId"],
      [{ clientId: "tollgate\n" }, "clientId"],
      [{ clientId: "töllgate" }, "clientId"],
      [{ clientAuthMethod: "client_secret_basic" }, "clientSecret"],
      [{ clientAuthMethod: "client_secret_basic", clientSecret: "" }, "clientSecret"],
      [{ clientAuthMethod: "client_secret_basic", clientSecret: "tab\tsecret" }, "clientSecret"],
      [{ clientAuthMethod: "client_secret_basic", clientSecret: "x".repeat(256) }, "clientSecret"],
      [{ clientAuthMethod: "private_key_jwt", clientSecret: "not-for-private-key-jwt" }, "clientSecret"],
      [{ scopes: ["two words"] }, "scopes"],
      [{ scopes: ["profile", "profile"] }, "scopes"],
      [{ scopes: [""] }, "scopes"],
      [{ customerNumberClaim: "x".repeat(65) }, "customerNumberClaim"],
      [{ customerNumberClaim: "customer number" }, "customerNumberClaim"],
      [{ scaAcrValues: Array.from({ length: 21 }, (_, i) => `level${i}`) }, "scaAcrValues"],
      [{ scaAcrValues: ["x".repeat(256)] }, "scaAcrValues"],
      [{ scaAcrValues: ["two words"] }, "scaAcrValues"],
      [{ scaAcrValues: [""] }, "scaAcrValues"],
      [{ scaAcrValues: ["sca", "sca"] }, "scaAcrValues"],
    ];
    for (const [extra, field] of refusals) await expectRefused(CREATE, { input: input(extra) }, field);
    // Not a method: refused with the variables, before any resolver.
    await expectRefused(CREATE, { input: input({ clientAuthMethod: "none" }) }, "clientAuthMethod", 400);
    await expectRefused(CREATE, { input: { name: "Missing fields" } }, "input", 400);

    expect(await server.prisma.identityProvider.count()).toBe(providers);
    expect(await events("createIdentityProvider")).toHaveLength(audited);
  });

  it("refuses a taken name (CONFLICT naming it), and takes the loopback hosts over http", async () => {
    const name = uniqueName("Taken");
    await create({ name });
    const failure = await admin.failure(CREATE, { input: input({ name, clientAuthMethod: "client_secret_basic", clientSecret: "s3cret-value" }) });
    expect([failure.status, failure.code]).toEqual([200, "CONFLICT"]);
    expect(failure.message).toBe(`an identity provider named "${name}" already exists`);
    expect(await server.prisma.identityProvider.count({ where: { name } })).toBe(1);

    for (const issuer of ["http://localhost:8080/realms/bank", "http://[::1]:9/", "https://idp.bank.example/realms/retail"]) {
      expect((await create({ issuer })).issuer).toBe(issuer);
    }
  });
});

describe("identityProviders and identityProvider", () => {
  it("list every provider by name; one by id, null when unknown", async () => {
    const a = await create({ name: uniqueName("A list") });
    const { identityProviders } = await admin.data(LIST);
    const names: string[] = identityProviders.map((p: Json) => p.name);
    expect(names).toEqual([...names].sort());
    expect(identityProviders).toContainEqual(a);
    expect((await admin.data(ONE, { id: a.id })).identityProvider).toEqual(a);
    expect((await admin.data(ONE, { id: "no-such-provider" })).identityProvider).toBeNull();
  });
});

describe("updateIdentityProvider", () => {
  it("changes the settings given and keeps the others; openid stays first among the scopes; an empty claim is sub", async () => {
    const provider = await create({ customerNumberClaim: "kundennummer", scaAcrValues: ["sca"] });
    const name = uniqueName("Renamed");
    const { updateIdentityProvider: changed } = await admin.data(UPDATE, {
      id: provider.id,
      input: { name, issuer: "https://idp.bank.example", clientId: "tollgate-2", scopes: ["accounts"], customerNumberClaim: "" },
    });
    expect(changed).toMatchObject({ id: provider.id, name, issuer: "https://idp.bank.example", clientId: "tollgate-2", scopes: ["openid", "accounts"], customerNumberClaim: null, scaAcrValues: ["sca"], clientAuthMethod: "private_key_jwt" });
    expect(Date.parse(changed.updatedAt)).toBeGreaterThanOrEqual(Date.parse(provider.updatedAt));
    const { updateIdentityProvider: again } = await admin.data(UPDATE, { id: provider.id, input: { scopes: [], scaAcrValues: [] } });
    expect(again).toMatchObject({ name, scopes: ["openid"], scaAcrValues: [], customerNumberClaim: null });

    const [event] = await events("updateIdentityProvider", provider.id);
    expect(event).toMatchObject({ actor: `client:${DEMO.adminApp.consumerKey}` });
    expect(JSON.parse(event!.details).args.id).toBe(provider.id);
  });

  it("handles the client secret: required on the switch to client_secret_basic, replaced when given, kept when not, removed on the switch to private_key_jwt", async () => {
    const provider = await create();
    const first = `first-secret-${randomBytes(8).toString("hex")}`;
    const second = `second-secret-${randomBytes(8).toString("hex")}`;
    await expectRefused(UPDATE, { id: provider.id, input: { clientAuthMethod: "client_secret_basic" } }, "clientSecret");
    await expectRefused(UPDATE, { id: provider.id, input: { clientSecret: first } }, "clientSecret");
    expect(await row(provider.id)).toMatchObject({ clientAuthMethod: "private_key_jwt", clientSecret: null });

    const switched = await admin.post(UPDATE, { id: provider.id, input: { clientAuthMethod: "client_secret_basic", clientSecret: first } });
    expect(switched.body.data.updateIdentityProvider).toMatchObject({ clientAuthMethod: "client_secret_basic", hasClientSecret: true });
    expect(switched.text).not.toContain(first);
    const sealedFirst = (await row(provider.id)).clientSecret!;
    expect(sealedFirst.startsWith("kek1.")).toBe(true);
    expect(sealedFirst).not.toContain(first);
    expect(opened(sealedFirst, provider.id)).toBe(first);

    // Kept when not given (left out, null or empty), while the method stays.
    for (const kept of [{ clientId: "kept-1" }, { clientSecret: null }, { clientSecret: "" }, { clientAuthMethod: "client_secret_basic" }]) {
      expect((await admin.data(UPDATE, { id: provider.id, input: kept })).updateIdentityProvider.hasClientSecret).toBe(true);
      expect((await row(provider.id)).clientSecret).toBe(sealedFirst);
    }

    const replaced = await admin.post(UPDATE, { id: provider.id, input: { clientSecret: second } });
    expect(replaced.body.errors, replaced.text).toBeUndefined();
    const sealedSecond = (await row(provider.id)).clientSecret!;
    expect(sealedSecond).not.toBe(sealedFirst);
    expect(opened(sealedSecond, provider.id)).toBe(second);

    await expectRefused(UPDATE, { id: provider.id, input: { clientAuthMethod: "private_key_jwt", clientSecret: second } }, "clientSecret");
    expect((await row(provider.id)).clientSecret).toBe(sealedSecond);
    const { updateIdentityProvider: back } = await admin.data(UPDATE, { id: provider.id, input: { clientAuthMethod: "private_key_jwt" } });
    expect(back).toMatchObject({ clientAuthMethod: "private_key_jwt", hasClientSecret: false });
    expect((await row(provider.id)).clientSecret).toBeNull();

    const audited = await events("updateIdentityProvider", provider.id);
    expect(audited.map((e) => JSON.parse(e.details).args.input.clientSecret ?? null)).toContain("[redacted]");
    const everything = JSON.stringify(await server.prisma.auditEvent.findMany());
    for (const secret of [first, second]) expect(everything).not.toContain(secret);
  });

  it("refuses invalid fields (BAD_USER_INPUT), a taken name (CONFLICT) and an unknown id (NOT_FOUND), changing nothing", async () => {
    const provider = await create();
    const other = await create();
    const before = await row(provider.id);
    for (const [extra, field] of [
      [{ name: "" }, "name"],
      [{ issuer: "http://idp.bank.example/" }, "issuer"],
      [{ clientId: "" }, "clientId"],
      [{ scopes: ["a b"] }, "scopes"],
      [{ customerNumberClaim: "x".repeat(65) }, "customerNumberClaim"],
      [{ scaAcrValues: ["a b"] }, "scaAcrValues"],
    ] as const) {
      await expectRefused(UPDATE, { id: provider.id, input: extra }, field);
    }
    const taken = await admin.failure(UPDATE, { id: provider.id, input: { name: other.name } });
    expect([taken.code, taken.message]).toEqual(["CONFLICT", `an identity provider named "${other.name}" already exists`]);
    expect(await row(provider.id)).toEqual(before);

    const unknown = await admin.failure(UPDATE, { id: "no-such-provider", input: { clientId: "x" } });
    expect([unknown.status, unknown.code]).toEqual([200, "NOT_FOUND"]);
    expect(await events("updateIdentityProvider", "no-such-provider")).toEqual([]);
  });
});

describe("an app's and an API product's identity provider", () => {
  it("setAppSettings sets the app's, which the client lookup sees at once; an unknown id is refused; null and empty remove it", async () => {
    const provider = await create();
    // The client is in the catalog cache before the change.
    expect((await server.db.clients.byConsumerKey(DEMO.app.consumerKey))?.identityProviderId).toBeNull();
    expect(server.db.clients.cachedByConsumerKey(DEMO.app.consumerKey)).toBeDefined();

    const { setAppSettings: set } = await admin.data(SET_APP, { id: appId, input: { identityProviderId: provider.id } });
    expect(set.identityProvider).toEqual({ id: provider.id, name: provider.name });
    expect((await admin.data(APP, { id: appId })).app.identityProvider).toEqual({ id: provider.id, name: provider.name, issuer: ISSUER });
    expect((await server.db.clients.byConsumerKey(DEMO.app.consumerKey))?.identityProviderId).toBe(provider.id);
    expect((await admin.data(ONE, { id: provider.id })).identityProvider.apps).toEqual([{ id: appId, name: DEMO.app.name }]);
    // Another setting leaves it as it is.
    expect((await admin.data(SET_APP, { id: appId, input: { requireNonce: false } })).setAppSettings.identityProvider).toEqual({ id: provider.id, name: provider.name });

    const message = await expectRefused(SET_APP, { id: appId, input: { identityProviderId: "no-such-provider" } }, "identityProviderId");
    expect(message).toBe("identityProviderId: no identity provider with this id");
    expect((await server.prisma.app.findUniqueOrThrow({ where: { id: appId } })).identityProviderId).toBe(provider.id);

    for (const none of [null, ""]) {
      expect((await admin.data(SET_APP, { id: appId, input: { identityProviderId: none } })).setAppSettings.identityProvider).toBeNull();
      expect((await server.db.clients.byConsumerKey(DEMO.app.consumerKey))?.identityProviderId).toBeNull();
      await admin.data(SET_APP, { id: appId, input: { identityProviderId: provider.id } });
    }
    await admin.data(SET_APP, { id: appId, input: { identityProviderId: null } });
    expect((await admin.data(ONE, { id: provider.id })).identityProvider.apps).toEqual([]);

    const audited = await events("setAppSettings", appId);
    expect(audited.map((e) => JSON.parse(e.details).args.input.identityProviderId)).toEqual([provider.id, undefined, null, provider.id, "", provider.id, null]);
  });

  it("createApiProduct and updateApiProduct set the product's, which the client lookup sees at once; an unknown id is refused; null and empty remove it", async () => {
    const provider = await create();
    const unknown = await expectRefused(CREATE_PRODUCT, { input: { name: "IdP-Refused-v1", identityProviderId: "no-such-provider" } }, "identityProviderId");
    expect(unknown).toBe("identityProviderId: no identity provider with this id");
    expect(await server.prisma.apiProduct.count({ where: { name: "IdP-Refused-v1" } })).toBe(0);

    const { createApiProduct: product } = await admin.data(CREATE_PRODUCT, { input: { name: "IdP-Product-v1", identityProviderId: provider.id } });
    expect(product.identityProvider).toEqual({ id: provider.id, name: provider.name });
    expect((await admin.data(PRODUCTS)).apiProducts).toContainEqual({ id: product.id, name: "IdP-Product-v1", identityProvider: { id: provider.id, name: provider.name } });
    expect((await admin.data(ONE, { id: provider.id })).identityProvider.apiProducts).toEqual([{ id: product.id, name: "IdP-Product-v1" }]);
    expect((await admin.data(CREATE_PRODUCT, { input: { name: "IdP-None-v1", identityProviderId: "" } })).createApiProduct.identityProvider).toBeNull();

    // The demo app's product: the client lookup (catalog cache) sees its provider at once.
    const aisp = await server.prisma.apiProduct.findUniqueOrThrow({ where: { name: "PSD2-AISP-v1" } });
    const productOf = async () => (await server.db.clients.byConsumerKey(DEMO.app.consumerKey))?.products.find((p) => p.name === "PSD2-AISP-v1")?.identityProviderId;
    expect(await productOf()).toBeNull();
    expect((await admin.data(UPDATE_PRODUCT, { id: aisp.id, input: { identityProviderId: provider.id } })).updateApiProduct.identityProvider).toEqual({ id: provider.id, name: provider.name });
    expect(await productOf()).toBe(provider.id);
    // Another change leaves it as it is.
    expect((await admin.data(UPDATE_PRODUCT, { id: aisp.id, input: { description: "Account information" } })).updateApiProduct.identityProvider).toEqual({ id: provider.id, name: provider.name });
    await expectRefused(UPDATE_PRODUCT, { id: aisp.id, input: { identityProviderId: "no-such-provider" } }, "identityProviderId");
    expect(await productOf()).toBe(provider.id);
    for (const none of ["", null]) {
      await admin.data(UPDATE_PRODUCT, { id: aisp.id, input: { identityProviderId: provider.id } });
      expect((await admin.data(UPDATE_PRODUCT, { id: aisp.id, input: { identityProviderId: none } })).updateApiProduct.identityProvider).toBeNull();
      expect(await productOf()).toBeNull();
    }
    expect(JSON.parse((await events("createApiProduct")).find((e) => e.details.includes("IdP-Product-v1"))!.details).args.input.identityProviderId).toBe(provider.id);
    await admin.data("mutation($id: ID!) { deleteApiProduct(id: $id) }", { id: product.id });
  });
});

describe("deleteIdentityProvider", () => {
  it("deletes it: its app and product fall back to Tollgate's own sign-in at once; audited; then NOT_FOUND", async () => {
    const provider = await create({ clientAuthMethod: "client_secret_basic", clientSecret: "to-be-deleted-secret" });
    await admin.data(SET_APP, { id: appId, input: { identityProviderId: provider.id } });
    const { createApiProduct: product } = await admin.data(CREATE_PRODUCT, { input: { name: "IdP-Deleted-v1", identityProviderId: provider.id } });
    const aisp = await server.prisma.apiProduct.findUniqueOrThrow({ where: { name: "PSD2-AISP-v1" } });
    await admin.data(UPDATE_PRODUCT, { id: aisp.id, input: { identityProviderId: provider.id } });
    const client = await server.db.clients.byConsumerKey(DEMO.app.consumerKey);
    expect(client?.identityProviderId).toBe(provider.id);
    expect(client?.products.find((p) => p.name === "PSD2-AISP-v1")?.identityProviderId).toBe(provider.id);
    const { identityProvider: used } = await admin.data(ONE, { id: provider.id });
    expect([used.apps.length, used.apiProducts.length]).toEqual([1, 2]);

    expect((await admin.data(DELETE, { id: provider.id })).deleteIdentityProvider).toBe(provider.id);
    expect((await admin.data(ONE, { id: provider.id })).identityProvider).toBeNull();
    expect(await server.prisma.identityProvider.findUnique({ where: { id: provider.id } })).toBeNull();
    expect((await admin.data(APP, { id: appId })).app.identityProvider).toBeNull();
    expect((await admin.data(PRODUCTS)).apiProducts.filter((p: Json) => [product.id, aisp.id].includes(p.id)).map((p: Json) => p.identityProvider)).toEqual([null, null]);
    expect(await server.prisma.app.count({ where: { identityProviderId: provider.id } })).toBe(0);
    expect(await server.prisma.apiProduct.count({ where: { identityProviderId: provider.id } })).toBe(0);
    const after = await server.db.clients.byConsumerKey(DEMO.app.consumerKey);
    expect(after?.identityProviderId).toBeNull();
    expect(after?.products.find((p) => p.name === "PSD2-AISP-v1")?.identityProviderId).toBeNull();

    const [event] = await events("deleteIdentityProvider", provider.id);
    expect(event).toMatchObject({ actor: `client:${DEMO.adminApp.consumerKey}` });
    expect(JSON.parse(event!.details)).toEqual({ args: { id: provider.id }, ...AUDIT_REQUEST_FIELDS });

    const again = await admin.failure(DELETE, { id: provider.id });
    expect([again.status, again.code]).toEqual([200, "NOT_FOUND"]);
    expect(await events("deleteIdentityProvider", provider.id)).toHaveLength(1);
    await admin.data("mutation($id: ID!) { deleteApiProduct(id: $id) }", { id: product.id });
  });
});

describe("access", () => {
  it("refuses a caller who is not signed in, or not an admin, changing and recording nothing", async () => {
    const provider = await create();
    const before = await row(provider.id);
    const audited = await server.prisma.auditEvent.count({ where: { type: { endsWith: "IdentityProvider" } } });
    const alice = withSession(await signIn(server.url, DEMO.user));
    for (const [client, code] of [
      [anonymous(server.url), "UNAUTHENTICATED"],
      [alice, "FORBIDDEN"],
    ] as const) {
      for (const [query, variables] of [
        [LIST, {}],
        [ONE, { id: provider.id }],
        [CREATE, { input: input() }],
        [UPDATE, { id: provider.id, input: { name: "Hijacked" } }],
        [DELETE, { id: provider.id }],
        [SET_APP, { id: appId, input: { identityProviderId: provider.id } }],
      ] as const) {
        const answer = await client.post(query, variables);
        expect(answer.status, answer.text).toBe(200);
        expect(answer.body.errors?.[0]?.extensions?.code, answer.text).toBe(code);
        // A nullable root field answers null beside the error; a non-null one nulls the data.
        expect(answer.body.data === null || Object.values(answer.body.data).every((v) => v === null), answer.text).toBe(true);
      }
    }
    expect(await row(provider.id)).toEqual(before);
    expect(await server.prisma.auditEvent.count({ where: { type: { endsWith: "IdentityProvider" } } })).toBe(audited);
    expect((await server.prisma.app.findUniqueOrThrow({ where: { id: appId } })).identityProviderId).toBeNull();
  });
});
