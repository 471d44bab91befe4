/**
 * The end user's surface of the admin API (issue 13 M2). The schema the server serves
 * (introspected by an admin over HTTP) is walked from every root field an end user may
 * call (SELF_SERVICE in server/src/admin/resolvers/index.ts), through field types and
 * argument types, and every type and field reached is checked against an allow-list. A
 * field added to one of these types, or a new path to an admin type (an app, a credential,
 * a developer...), fails here until it is allowed on purpose.
 */
import {
  buildClientSchema,
  getIntrospectionQuery,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isObjectType,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLNamedType,
  type GraphQLSchema,
} from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SELF_SERVICE } from "../src/admin/resolvers/index.js";
import { DEMO } from "../src/demo/seed.js";
import { obtainCode } from "./support/flow.js";
import { adminBearer, signIn, withSession } from "./support/graphql.js";
import { startTestServer, type TestServer } from "./support/server.js";

/** What an end user may reach: fields of object and input types, values of enums, nothing of scalars. */
const ALLOWED: Record<string, string[]> = {
  Query: ["me", "myConsents", "myPsd2Consents"],
  Mutation: ["revokeMyConsent", "revokeMyPsd2Consent"],
  Me: ["id", "role", "username"],
  Role: ["admin", "auditor", "support", "user"],
  MyConsent: ["accessUntil", "appName", "grantedAt", "id", "lastUsedAt", "organizationName", "scopes"],
  GrantedScope: ["description", "name"],
  // Their own PSD2 consents: the TPP by app and organization name (never its client id), what they authorized, its status and dates.
  MyPsd2Consent: [
    "appName",
    "authorizationDetails",
    "createdAt",
    "id",
    "kind",
    "organizationName",
    "origin",
    "status",
    "statusChangedAt",
    "username",
    "validUntil",
  ],
  ID: [],
  String: [],
  DateTime: [],
};

/**
 * Every named type reachable from the self-service root fields, with its reachable members:
 * the self-service fields for Query and Mutation, all fields or values for the others.
 */
function reachable(schema: GraphQLSchema): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  const roots = [schema.getQueryType(), schema.getMutationType()].filter((t) => t != null);
  const queue: GraphQLNamedType[] = [];
  const visit = (type: GraphQLNamedType) => {
    if (found[type.name] !== undefined) return;
    found[type.name] = [];
    queue.push(type);
  };
  const follow = (field: GraphQLField<unknown, unknown> | GraphQLInputField) => {
    visit(getNamedType(field.type));
    for (const arg of "args" in field ? field.args : []) visit(getNamedType(arg.type));
  };
  for (const root of roots) {
    const fields = Object.values(root.getFields()).filter((f) => SELF_SERVICE.has(f.name));
    if (fields.length === 0) continue;
    found[root.name] = fields.map((f) => f.name).sort();
    fields.forEach(follow);
  }
  while (queue.length > 0) {
    const type = queue.shift()!;
    if (isObjectType(type) || isInputObjectType(type)) {
      const fields = Object.values(type.getFields());
      found[type.name] = fields.map((f) => f.name).sort();
      fields.forEach(follow);
    } else if (isEnumType(type)) {
      found[type.name] = type.getValues().map((v) => v.name).sort();
    }
  }
  return found;
}

let server: TestServer;
let served: GraphQLSchema;

beforeAll(async () => {
  server = await startTestServer();
  const admin = await adminBearer(server.url);
  served = buildClientSchema(await admin.data(getIntrospectionQuery()));
});

afterAll(async () => {
  await server?.close();
});

describe("what an end user can reach through the admin API", () => {
  it("the self-service root fields are me, myConsents, revokeMyConsent, myPsd2Consents and revokeMyPsd2Consent", () => {
    expect([...SELF_SERVICE].sort()).toEqual(["me", "myConsents", "myPsd2Consents", "revokeMyConsent", "revokeMyPsd2Consent"]);
  });

  it("is exactly the allow-list: their own account, per consent the app's and organization's names, the scopes and two dates, and their PSD2 consents", () => {
    expect(reachable(served)).toEqual(ALLOWED);
  });

  it("a PSU's PSD2 consents do not name the TPP's client id: asking for it is a validation error", async () => {
    const alice = withSession(await signIn(server.url, DEMO.user));
    for (const query of ["{ myPsd2Consents { id clientId } }", 'mutation { revokeMyPsd2Consent(id: "x") { clientId } }']) {
      expect((await alice.failure(query)).code, query).toBe("GRAPHQL_VALIDATION_FAILED");
    }
  });

  it("every allowed field answers a signed-in user", async () => {
    await obtainCode(server.url, { user: DEMO.user });
    const alice = withSession(await signIn(server.url, DEMO.user));
    const { me, myConsents } = await alice.data("{ me { id username role } myConsents { id appName organizationName scopes { name description } grantedAt lastUsedAt } }");
    expect(me).toMatchObject({ username: DEMO.user.username, role: "user" });
    expect(myConsents).toEqual([
      {
        id: expect.any(String),
        appName: DEMO.app.name,
        organizationName: DEMO.organization,
        scopes: [{ name: "aisp", description: expect.any(String) }],
        grantedAt: expect.any(String),
        lastUsedAt: null,
      },
    ]);
  });
});
