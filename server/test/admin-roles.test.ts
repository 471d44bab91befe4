/**
 * The console's roles (admin, support, auditor; admin/resolvers/index.ts mayCall), walked
 * field by field on a real server: every Query and Mutation root field of the schema is sent by
 * each role, signed in with their second factor, with placeholder arguments. The access rule
 * answers first, so a field a role may not call is FORBIDDEN, and one it may is anything but
 * FORBIDDEN (its own checks may refuse the placeholders). Then ADMIN_REQUIRE_SCA: a staff user
 * signed in with a password alone acts in no role, and a role change is audited.
 */
import { readFileSync } from "node:fs";
import {
  buildSchema,
  getNamedType,
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  isObjectType,
  type GraphQLInputType,
  type GraphQLField,
} from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SELF_SERVICE, SUPPORT_MUTATIONS } from "../src/admin/resolvers/index.js";
import { adminBearer, signIn, withSession, type GraphQLClient } from "./support/graphql.js";
import { createUser, enrolPasskey, startTestServer, type TestServer } from "./support/server.js";

const schema = buildSchema(readFileSync(new URL("../src/admin/schema.graphql", import.meta.url), "utf8"));

/** A placeholder literal of an input type: required fields only, every list one element. */
function placeholder(type: GraphQLInputType): string {
  if (type instanceof GraphQLNonNull) return placeholder(type.ofType);
  if (type instanceof GraphQLList) return `[${placeholder(type.ofType)}]`;
  if (type instanceof GraphQLEnumType) return type.getValues()[0]!.name;
  if (type instanceof GraphQLInputObjectType) {
    const required = Object.values(type.getFields()).filter((f) => f.type instanceof GraphQLNonNull);
    return `{ ${required.map((f) => `${f.name}: ${placeholder(f.type)}`).join(", ")} }`;
  }
  const name = getNamedType(type).name;
  return name === "Int" ? "1" : name === "Boolean" ? "false" : name === "DateTime" ? '"2026-01-01T00:00:00Z"' : '"placeholder"';
}

/** The operation calling `field` of `type` with placeholders for its required arguments. */
function operation(type: "Query" | "Mutation", field: GraphQLField<unknown, unknown>): string {
  const args = field.args.filter((a) => a.type instanceof GraphQLNonNull).map((a) => `${a.name}: ${placeholder(a.type)}`);
  const selection = isObjectType(getNamedType(field.type)) ? " { __typename }" : "";
  return `${type === "Query" ? "query" : "mutation"} { ${field.name}${args.length > 0 ? `(${args.join(", ")})` : ""}${selection} }`;
}

/** The root fields of `type` the access rule guards (all but the signed-in user's own). */
function guarded(type: "Query" | "Mutation"): GraphQLField<unknown, unknown>[] {
  const root = schema.getType(type) as GraphQLObjectType;
  return Object.values(root.getFields()).filter((f) => !SELF_SERVICE.has(f.name));
}

let server: TestServer;
let admin: GraphQLClient;
const sessions: Record<"admin" | "support" | "auditor", GraphQLClient> = {} as never;

beforeAll(async () => {
  server = await startTestServer();
  admin = await adminBearer(server.url);
  for (const role of ["admin", "support", "auditor"] as const) {
    const user = await createUser(server, { prefix: role, role, passkey: true });
    sessions[role] = withSession(await signIn(server.url, user));
  }
});
afterAll(() => server?.close());

/** The code of the first error of an answer, or undefined. */
async function errorCode(client: GraphQLClient, query: string): Promise<string | undefined> {
  const answer = await client.post(query);
  return answer.body?.errors?.[0]?.extensions?.code as string | undefined;
}

describe.each([
  ["admin", () => true],
  ["support", (type: string, field: string) => type === "Query" || SUPPORT_MUTATIONS.has(field)],
  ["auditor", (type: string) => type === "Query"],
] as const)("the %s role", (role, allowed) => {
  for (const type of ["Query", "Mutation"] as const) {
    it.each(guarded(type).map((f) => [f.name, f] as const))(`${type}.%s`, async (name, field) => {
      const code = await errorCode(sessions[role], operation(type, field));
      if (allowed(type, name)) expect(code, `${role} may call ${name}`).not.toBe("FORBIDDEN");
      else expect(code, `${role} may not call ${name}`).toBe("FORBIDDEN");
    });
  }
});

describe("the support tools' rule", () => {
  it("support ends blocks and sets a PSU's temporary password, never a staff account's; the auditor does neither", async () => {
    expect(SUPPORT_MUTATIONS.has("unblockUser") && SUPPORT_MUTATIONS.has("setTemporaryPassword")).toBe(true);
    const psu = await createUser(server, { prefix: "psu" });
    const staff = await createUser(server, { prefix: "staff", role: "support" });
    const set = (id: string) => `mutation { setTemporaryPassword(id: "${id}") { validUntil } }`;
    expect(await errorCode(sessions.support, set(psu.id))).toBeUndefined();
    expect(await errorCode(sessions.support, set(staff.id))).toBe("FORBIDDEN");
    expect(await errorCode(sessions.admin, set(staff.id))).toBeUndefined();
    expect(await errorCode(sessions.auditor, `mutation { unblockUser(id: "${psu.id}") { id } }`)).toBe("FORBIDDEN");
  });
});

describe("renameApp, deleteApp, eraseDeveloper, eraseOrganization", () => {
  it("are the admin's alone: support and auditors are refused before anything is looked up", async () => {
    const mutations = (schema.getType("Mutation") as GraphQLObjectType).getFields();
    for (const name of ["renameApp", "deleteApp", "eraseDeveloper", "eraseOrganization"]) {
      const query = operation("Mutation", mutations[name]!);
      for (const role of ["support", "auditor"] as const) expect(await errorCode(sessions[role], query), `${role} ${name}`).toBe("FORBIDDEN");
      expect(await errorCode(sessions.admin, query), `admin ${name}`).toBe("NOT_FOUND");
    }
  });
});

describe("the console's copy of the rule (web/src/lib/roles.ts)", () => {
  it("hides exactly what the server refuses: the same support mutations", () => {
    const source = readFileSync(new URL("../../web/src/lib/roles.ts", import.meta.url), "utf8");
    const listed = /SUPPORT_MUTATIONS: ReadonlySet<string> = new Set\(\[([^\]]*)\]\)/.exec(source)![1]!;
    expect([...listed.matchAll(/"([^"]+)"/g)].map((m) => m[1]).sort()).toEqual([...SUPPORT_MUTATIONS].sort());
  });
});

describe("the queue of pending registrations", () => {
  it.each(["admin", "support", "auditor"] as const)("the %s role reads pendingRegistrations and pendingRegistrationCount", async (role) => {
    const answer = await sessions[role].data("{ pendingRegistrationCount pendingRegistrations { nodes { id status } } }");
    expect(answer.pendingRegistrationCount).toBe(answer.pendingRegistrations.nodes.length);
  });
});

describe("ADMIN_REQUIRE_SCA and role changes", () => {
  it("a staff user signed in with a password alone acts in no role; with the second factor, in theirs", async () => {
    const support = await createUser(server, { prefix: "support-pwd", role: "support" });
    const passwordOnly = withSession(await signIn(server.url, support));
    const refused = await passwordOnly.post("{ users { nodes { id } } }");
    expect(refused.body.errors[0]).toMatchObject({ extensions: { code: "FORBIDDEN" } });
    expect(refused.body.errors[0].message).toMatch(/second factor/);
    expect((await passwordOnly.data("{ me { username role } }")).me).toEqual({ username: support.username, role: "support" });
    await enrolPasskey(server, support.username);
    expect((await withSession(await signIn(server.url, support)).data("{ users { nodes { id } } }")).users.nodes.length).toBeGreaterThan(0);
  });

  it("setUserRole changes a role, audited; an admin cannot change their own", async () => {
    const user = await createUser(server, { prefix: "promoted" });
    expect((await admin.data('mutation($id: ID!) { setUserRole(userId: $id, role: auditor) { role } }', { id: user.id })).setUserRole).toEqual({ role: "auditor" });
    const event = await server.prisma.auditEvent.findFirstOrThrow({ where: { type: "admin.setUserRole", subject: user.id } });
    expect(JSON.parse(event.details)).toMatchObject({ args: { userId: user.id, role: "auditor" } });
    const me = (await sessions.admin.data("{ me { id } }")).me.id as string;
    expect(await errorCode(sessions.admin, `mutation { setUserRole(userId: "${me}", role: user) { role } }`)).toBe("CONFLICT");
  });
});
