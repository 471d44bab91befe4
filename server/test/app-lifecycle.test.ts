/**
 * An app's and a developer's end of life in the admin API, against the running server: an app
 * renamed (checked as at creation, audited with its previous name); an app deleted with live
 * tokens (revoked, then removed with its credentials: inactive at introspection, refused at the
 * gateway and the token endpoint; its PSD2 consent and the audit trail kept and still readable);
 * a developer and an organization erased (GDPR Art. 17: refused while they have apps, their
 * personal data gone from the audit events, which stay, pseudonymized); what a switch to
 * fapi2 breaks; hostile arguments answered with clear errors.
 */
import { describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { callApi, clientCredentialsToken, INTROSPECTION_ENDPOINT, pkcePair, tokenRequest, TOKEN_ENDPOINT, userTokens, type DemoClient, type Json } from "./support/flow.js";
import { adminSuite } from "./support/graphql.js";

const suite = adminSuite();

let serial = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++serial}`;

/** A new organization with one developer. */
async function newDeveloper(email = `${unique("dev")}@example.com`, lastName = "Lovelace"): Promise<{ organizationId: string; developerId: string; email: string }> {
  const { createOrganization } = await suite.admin.data(`mutation($input: CreateOrganizationInput!) { createOrganization(input: $input) { id } }`, {
    input: { name: unique("Org"), displayName: "Lovelace Analytics" },
  });
  const { createDeveloper } = await suite.admin.data(`mutation($input: CreateDeveloperInput!) { createDeveloper(input: $input) { id } }`, {
    input: { organizationId: createOrganization.id, email, firstName: "Ada", lastName },
  });
  return { organizationId: createOrganization.id, developerId: createDeveloper.id, email };
}

/** A new app of `developerId` with the demo app's PSD2 products and callback URL. */
async function newApp(developerId: string, name = unique("App")): Promise<{ id: string; name: string; client: DemoClient; credentialId: string }> {
  const { apiProducts } = await suite.admin.data(`{ apiProducts { id name } }`);
  const { createApp } = await suite.admin.data(`mutation($input: CreateAppInput!) { createApp(input: $input) { consumerKey consumerSecret credential { id } app { id name } } }`, {
    input: {
      developerId,
      name,
      callbackUrls: [DEMO.callbackUrl],
      apiProductIds: apiProducts.filter((p: Json) => p.name.startsWith("PSD2-")).map((p: Json) => p.id),
    },
  });
  return { id: createApp.app.id, name, client: { consumerKey: createApp.consumerKey, consumerSecret: createApp.consumerSecret }, credentialId: createApp.credential.id };
}

const RENAME = `mutation($id: ID!, $name: String!) { renameApp(id: $id, name: $name) { id name } }`;
const DELETE = `mutation($id: ID!) { deleteApp(id: $id) { id revokedTokens } }`;
const ERASE_DEVELOPER = `mutation($id: ID!) { eraseDeveloper(id: $id) { id pseudonym auditEventsPseudonymized } }`;
const ERASE_ORGANIZATION = `mutation($id: ID!) { eraseOrganization(id: $id) { id pseudonym auditEventsPseudonymized } }`;

describe("renameApp", () => {
  it("renames an app, audited with its previous name", async () => {
    const { developerId } = await newDeveloper();
    const app = await newApp(developerId);
    const renamed = unique("Renamed");
    expect((await suite.admin.data(RENAME, { id: app.id, name: renamed })).renameApp).toEqual({ id: app.id, name: renamed });
    expect((await suite.admin.data(`query($id: ID!) { app(id: $id) { name } }`, { id: app.id })).app.name).toBe(renamed);
    const event = await suite.server.prisma.auditEvent.findFirstOrThrow({ where: { type: "admin.renameApp", subject: app.id } });
    expect(JSON.parse(event.details)).toMatchObject({ args: { id: app.id, name: renamed }, previousName: app.name });
  });

  it("checks the name as createApp does, and refuses a name the developer's other app has", async () => {
    const { developerId } = await newDeveloper();
    const app = await newApp(developerId);
    const other = await newApp(developerId);
    expect(await suite.admin.failure(RENAME, { id: app.id, name: other.name })).toMatchObject({ code: "CONFLICT" });
    for (const name of ["", "   ", "x".repeat(1000), "bad\u0000name"]) {
      const failure = await suite.admin.failure(RENAME, { id: app.id, name });
      expect(failure.code, JSON.stringify(name)).toBe("BAD_USER_INPUT");
      expect(failure.message).toMatch(/name/);
    }
    expect(await suite.admin.failure(RENAME, { id: "no-such-app", name: "Fine" })).toMatchObject({ code: "NOT_FOUND" });
    expect((await suite.admin.data(`query($id: ID!) { app(id: $id) { name } }`, { id: app.id })).app.name).toBe(app.name);
  });
});

describe("deleteApp", () => {
  it("revokes the app's live tokens, then removes them and its credentials; its PSD2 consent and the audit trail stay", async () => {
    const { developerId } = await newDeveloper();
    const app = await newApp(developerId);
    const machine = await clientCredentialsToken(suite.server.url, app.client);
    const user = (await userTokens(suite.server.url, { client: app.client, scope: "aisp", pkce: pkcePair() })).tokens;
    expect((await callApi(suite.server.url, user.access_token, "/accounts/")).status).toBe(200);
    const consent = await suite.server.prisma.psd2Consent.create({ data: { appId: app.id, kind: "account_information", origin: "berlin_group", requestedDetails: "[]" } });
    expect((await suite.admin.data(`query($id: ID!) { app(id: $id) { liveTokenCount } }`, { id: app.id })).app.liveTokenCount).toBe(2);

    expect((await suite.admin.data(DELETE, { id: app.id })).deleteApp).toEqual({ id: app.id, revokedTokens: 2 });

    for (const token of [machine, user.access_token]) {
      const introspected = await tokenRequest(suite.server.url, INTROSPECTION_ENDPOINT, DEMO.strictApp, { token });
      expect(introspected.body).toEqual({ active: false });
      expect((await callApi(suite.server.url, token, "/accounts/")).status).toBe(401);
    }
    // The consumer key and secret are gone: neither a new token nor a refresh.
    expect((await tokenRequest(suite.server.url, TOKEN_ENDPOINT, app.client, { grant_type: "client_credentials" })).body.error).toBe("invalid_client");
    expect((await tokenRequest(suite.server.url, TOKEN_ENDPOINT, app.client, { grant_type: "refresh_token", refresh_token: user.refresh_token })).body.error).toBe("invalid_client");
    expect(await suite.server.prisma.credential.count({ where: { appId: app.id } })).toBe(0);
    expect(await suite.server.prisma.accessToken.count({ where: { appId: app.id } })).toBe(0);
    expect(await suite.server.prisma.authorizationCode.count({ where: { appId: app.id } })).toBe(0);
    expect(await suite.server.prisma.consent.count({ where: { appId: app.id } })).toBe(0);
    expect((await suite.admin.data(`query($id: ID!) { app(id: $id) { id } }`, { id: app.id })).app).toBeNull();

    // Kept: the PSD2 consent, named as the deletion's audit event recorded the app.
    const kept = (await suite.admin.data(`query($id: ID!) { psd2Consent(id: $id) { id appName clientId } }`, { id: consent.id })).psd2Consent;
    expect(kept).toEqual({ id: consent.id, appName: `${app.name} (deleted)`, clientId: app.client.consumerKey });
    const created = await suite.server.prisma.auditEvent.findFirst({ where: { type: "admin.createApp", details: { contains: app.name } } });
    expect(created).not.toBeNull();
    const deleted = await suite.server.prisma.auditEvent.findFirstOrThrow({ where: { type: "admin.deleteApp", subject: app.id } });
    expect(deleted.actor).toBe(`client:${DEMO.adminApp.consumerKey}`);
    expect(JSON.parse(deleted.details)).toMatchObject({ app: { name: app.name, developerId, consumerKeys: [app.client.consumerKey] }, revokedTokens: 2 });
  });

  it("answers NOT_FOUND for an unknown or already deleted app, and for hostile ids", async () => {
    const { developerId } = await newDeveloper();
    const app = await newApp(developerId);
    await suite.admin.data(DELETE, { id: app.id });
    for (const id of [app.id, "", "x".repeat(5000), "'; DROP TABLE \"App\"; --", "\u0000"]) {
      expect(await suite.admin.failure(DELETE, { id })).toMatchObject({ code: "NOT_FOUND" });
    }
    expect(await suite.admin.failure(`mutation { deleteApp(id: 12) { id } }`)).toMatchObject({ code: "NOT_FOUND" });
    expect((await suite.admin.post(`mutation { deleteApp { id } }`)).status).toBe(400);
  });
});

describe("eraseDeveloper and eraseOrganization (GDPR Art. 17)", () => {
  it("refuses while the developer has apps, then erases them and pseudonymizes every audit event that named them", async () => {
    const firstEmail = `${unique("ada")}@example.com`;
    const { developerId, organizationId } = await newDeveloper(firstEmail, "Byron-King");
    const email = `${unique("ada.new")}@example.com`;
    await suite.admin.data(`mutation($id: ID!, $input: UpdateDeveloperInput!) { updateDeveloper(id: $id, input: $input) { id } }`, { id: developerId, input: { email } });
    const app = await newApp(developerId);

    const refused = await suite.admin.failure(ERASE_DEVELOPER, { id: developerId });
    expect(refused.code).toBe("CONFLICT");
    expect(refused.message).toMatch(/delete its apps first/);

    await suite.admin.data(DELETE, { id: app.id });
    const named = await suite.server.prisma.auditEvent.findMany({ where: { OR: [{ subject: developerId }, { details: { contains: firstEmail } }] }, orderBy: { at: "asc" } });
    expect(named.map((e) => e.type)).toEqual(expect.arrayContaining(["admin.createDeveloper", "admin.updateDeveloper"]));

    const erased = (await suite.admin.data(ERASE_DEVELOPER, { id: developerId })).eraseDeveloper;
    expect(erased.pseudonym).toMatch(/^erased-developer-[0-9a-f]{12}$/);
    expect(erased.auditEventsPseudonymized).toBeGreaterThanOrEqual(2);
    expect(await suite.server.prisma.developer.count({ where: { id: developerId } })).toBe(0);

    // The events stay: same ids, types, times and subjects; the personal data replaced by the pseudonym.
    const after = await suite.server.prisma.auditEvent.findMany({ where: { id: { in: named.map((e) => e.id) } }, orderBy: { at: "asc" } });
    expect(after.map(({ id, type, at, subject, actor }) => ({ id, type, at, subject, actor }))).toEqual(named.map(({ id, type, at, subject, actor }) => ({ id, type, at, subject, actor })));
    for (const event of after) {
      expect(event.details).not.toMatch(new RegExp(`${firstEmail}|${email}|Byron-King`, "i"));
    }
    expect(after.find((e) => e.type === "admin.createDeveloper")!.details).toContain(erased.pseudonym);
    const all = await suite.server.prisma.auditEvent.findMany({ where: { OR: [{ details: { contains: firstEmail } }, { details: { contains: email } }] } });
    expect(all).toEqual([]);
    const event = await suite.server.prisma.auditEvent.findFirstOrThrow({ where: { type: "admin.eraseDeveloper", subject: developerId } });
    expect(JSON.parse(event.details)).toMatchObject({ pseudonym: erased.pseudonym });
    // The same pseudonym every time; the organization stays.
    expect((await suite.admin.data(`query($id: ID!) { organization(id: $id) { id } }`, { id: organizationId })).organization).not.toBeNull();
  });

  it("erases an organization with its developers, refused while one has apps", async () => {
    const { developerId, organizationId } = await newDeveloper();
    const org = (await suite.admin.data(`query($id: ID!) { organization(id: $id) { name } }`, { id: organizationId })).organization;
    const app = await newApp(developerId);
    const refused = await suite.admin.failure(ERASE_ORGANIZATION, { id: organizationId });
    expect(refused).toMatchObject({ code: "CONFLICT" });
    expect(refused.message).toMatch(/delete its apps first/);
    await suite.admin.data(DELETE, { id: app.id });

    const erased = (await suite.admin.data(ERASE_ORGANIZATION, { id: organizationId })).eraseOrganization;
    expect(erased.pseudonym).toMatch(/^erased-organization-[0-9a-f]{12}$/);
    expect(await suite.server.prisma.organization.count({ where: { id: organizationId } })).toBe(0);
    expect(await suite.server.prisma.developer.count({ where: { id: developerId } })).toBe(0);
    expect(await suite.server.prisma.auditEvent.count({ where: { details: { contains: `"${org.name}"` } } })).toBe(0);
    const created = await suite.server.prisma.auditEvent.findFirstOrThrow({ where: { type: "admin.createOrganization", subject: organizationId } });
    expect(JSON.parse(created.details).args.input).toEqual({ name: erased.pseudonym, displayName: erased.pseudonym });
    // The deleted app's event named the organization: pseudonymized too.
    const deleted = await suite.server.prisma.auditEvent.findFirstOrThrow({ where: { type: "admin.deleteApp", subject: app.id } });
    expect(JSON.parse(deleted.details).app.organizationName).toBe(erased.pseudonym);
  });

  it("answers NOT_FOUND for unknown and hostile ids", async () => {
    for (const query of [ERASE_DEVELOPER, ERASE_ORGANIZATION]) {
      for (const id of ["no-such-id", "", "%", "x".repeat(5000)]) {
        expect(await suite.admin.failure(query, { id })).toMatchObject({ code: "NOT_FOUND" });
      }
    }
  });
});

describe("App.securityProfileChange", () => {
  it("names what a switch to fapi2 breaks, from the app's settings and live tokens", async () => {
    const { developerId } = await newDeveloper();
    const app = await newApp(developerId);
    await clientCredentialsToken(suite.server.url, app.client);
    const change = (to: string) => suite.admin.data(`query($id: ID!, $to: SecurityProfile!) { app(id: $id) { securityProfileChange(to: $to) } }`, { id: app.id, to });
    const toFapi = (await change("fapi2")).app.securityProfileChange as string[];
    expect(toFapi.join("\n")).toMatch(/client secret stops working \(client_secret_basic\)/);
    expect(toFapi.join("\n")).toMatch(/no registered public signing keys/);
    expect(toFapi.join("\n")).toMatch(/PAR/);
    expect(toFapi.join("\n")).toMatch(/DPoP/);
    expect(toFapi.at(-1)).toMatch(/^1 live access token stays valid until it expires/);
    expect((await change("standard")).app.securityProfileChange).toEqual([]);
  });
});
