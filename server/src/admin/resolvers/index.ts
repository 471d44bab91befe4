/**
 * All resolvers, with the access rule applied in one place: every Query and Mutation field
 * needs an admin, except the signed-in user's own fields; every admin mutation is written
 * to the audit log with who did it.
 */
import { GraphQLScalarType, Kind } from "graphql";
import { recordAuditEvent } from "../../audit/repository.js";
import { requireAdmin, type AdminContext } from "../context.js";
import { appResolvers } from "./apps.js";
import { consentResolvers } from "./consents.js";
import { organizationResolvers } from "./organizations.js";
import { productResolvers } from "./products.js";
import { tokenResolvers } from "./tokens.js";
import type { Resolver, Resolvers } from "./types.js";
import { userResolvers } from "./users.js";

/**
 * Root fields any caller may use (they check the signed-in user themselves). What they
 * reach must be the user's own data only (server/test/self-service-schema.test.ts).
 */
export const SELF_SERVICE: ReadonlySet<string> = new Set(["me", "myConsents", "revokeMyConsent"]);

const DateTime = new GraphQLScalarType<Date, string>({
  name: "DateTime",
  description: "ISO 8601 date-time",
  serialize: (value) => (value instanceof Date ? value : new Date(String(value))).toISOString(),
  parseValue: (value) => new Date(String(value)),
  parseLiteral: (ast) => new Date(ast.kind === Kind.STRING ? ast.value : NaN),
});

/** Arguments naming what a mutation changes, in order of preference, for the audit log. */
const SUBJECT_ARGS = ["id", "appId", "credentialId", "userId"];

function adminOnly(field: string, resolve: Resolver, audited: boolean): Resolver {
  return async (parent, args, ctx: AdminContext) => {
    const actor = requireAdmin(ctx);
    const result = await resolve(parent, args, ctx);
    if (audited) {
      const subject = SUBJECT_ARGS.map((k) => (args as Record<string, unknown>)[k]).find((v) => typeof v === "string");
      await recordAuditEvent(ctx.db, { type: `admin.${field}`, actor, subject: subject as string | undefined, details: { args: redact(args) } });
    }
    return result;
  };
}

/** Arguments as logged: passwords removed. */
function redact(args: unknown): unknown {
  return JSON.parse(JSON.stringify(args, (key, value) => (key === "password" ? "[redacted]" : value)));
}

function guard(type: "Query" | "Mutation", fields: Record<string, Resolver>): Record<string, Resolver> {
  return Object.fromEntries(
    Object.entries(fields).map(([field, resolve]) => [field, SELF_SERVICE.has(field) ? resolve : adminOnly(field, resolve, type === "Mutation")]),
  );
}

const modules: Resolvers[] = [organizationResolvers, appResolvers, productResolvers, userResolvers, tokenResolvers, consentResolvers];

/** The merged resolver map for Apollo Server. */
export function buildResolvers(): Record<string, unknown> {
  const merged: Resolvers = {};
  for (const m of modules) for (const [type, fields] of Object.entries(m)) merged[type] = { ...merged[type], ...fields };
  return { ...merged, Query: guard("Query", merged.Query!), Mutation: guard("Mutation", merged.Mutation!), DateTime };
}
