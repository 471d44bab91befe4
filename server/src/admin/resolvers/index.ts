/**
 * All resolvers, with the access rule applied in one place ({@link mayCall}): every Query and
 * Mutation field needs a staff role, except the signed-in user's own fields. Every admin
 * mutation records its audit event in its use case's transaction (audit.ts, use-cases/common.ts).
 */
import { GraphQLScalarType, Kind, type GraphQLResolveInfo } from "graphql";
import type { StaffRole } from "../../kernel/roles.js";
import { gqlError, requireStaff, type AdminContext } from "../context.js";
import type { MutationResolvers, QueryResolvers, Resolvers } from "../generated/resolvers.js";
import { appResolvers } from "./apps.js";
import { consentResolvers } from "./consents.js";
import { dashboardResolvers } from "./dashboard.js";
import { identityProviderResolvers } from "./identity-providers.js";
import { psd2ConsentResolvers } from "./psd2-consents.js";
import { organizationResolvers } from "./organizations.js";
import { productResolvers } from "./products.js";
import { signingKeyResolvers } from "./signing-keys.js";
import { tokenResolvers } from "./tokens.js";
import { userResolvers } from "./users.js";

/**
 * Root fields any caller may use (they check the signed-in user themselves). What they
 * reach must be the user's own data only (server/test/self-service-schema.test.ts).
 */
export const SELF_SERVICE: ReadonlySet<string> = new Set(["me", "myConsents", "revokeMyConsent", "myPsd2Consents", "revokeMyPsd2Consent"]);

/** An input date-time. @throws TypeError (a GraphQL validation error, 400) when it is not one. */
function dateTime(text: string): Date {
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) throw new TypeError("DateTime must be an ISO 8601 date-time");
  return date;
}

const DateTime = new GraphQLScalarType<Date, string>({
  name: "DateTime",
  description: "ISO 8601 date-time",
  serialize: (value) => (value instanceof Date ? value : new Date(String(value))).toISOString(),
  parseValue: (value) => dateTime(String(value)),
  parseLiteral: (ast) => dateTime(ast.kind === Kind.STRING ? ast.value : ""),
});

/** The mutations of the `support` role: revoking tokens and consents, resetting a user's factors, ending a block, a PSU's temporary password. */
export const SUPPORT_MUTATIONS: ReadonlySet<string> = new Set([
  "revokeToken",
  "revokeTokens",
  "revokeConsent",
  "revokePsd2Consent",
  "resetUserFactors",
  // Ending a sign-in block; a temporary password for a PSU (not for a staff account: resolvers/users.ts).
  "unblockUser",
  "setTemporaryPassword",
]);

/**
 * The access rule: an `admin` calls every root field; `support` and `auditor` read every
 * query; `support` also calls {@link SUPPORT_MUTATIONS}.
 */
export function mayCall(role: StaffRole, type: "Query" | "Mutation", field: string): boolean {
  return role === "admin" || type === "Query" || (role === "support" && SUPPORT_MUTATIONS.has(field));
}

/** A root field's resolver, as the guard sees it. */
type RootResolver = (parent: unknown, args: unknown, ctx: AdminContext, info: GraphQLResolveInfo) => unknown;

/** The root fields `fields` of `type`, each but the {@link SELF_SERVICE} ones refusing a caller whose role may not call it ({@link mayCall}). */
function guard<F extends QueryResolvers | MutationResolvers>(type: "Query" | "Mutation", fields: F): F {
  const guarded = Object.entries(fields as Record<string, RootResolver>).map(([field, resolve]): [string, RootResolver] => [
    field,
    SELF_SERVICE.has(field)
      ? resolve
      : (parent, args, ctx, info) => {
          const role = requireStaff(ctx);
          if (!mayCall(role, type, field)) throw gqlError("FORBIDDEN", `the ${role} role may not call ${field}`);
          return resolve(parent, args, ctx, info);
        },
  ]);
  return Object.fromEntries(guarded) as F;
}

const modules: Resolvers[] = [organizationResolvers, appResolvers, productResolvers, userResolvers, tokenResolvers, dashboardResolvers, consentResolvers, psd2ConsentResolvers, signingKeyResolvers, identityProviderResolvers];

/** The root fields of type `type` of every module. */
function rootFields<T extends "Query" | "Mutation">(type: T): NonNullable<Resolvers[T]> {
  return modules.reduce<NonNullable<Resolvers[T]>>((all, m) => ({ ...all, ...m[type] }), {});
}

/** The merged resolver map for Apollo Server. */
export function buildResolvers(): Resolvers {
  const objectTypes = modules.reduce<Resolvers>((all, m) => ({ ...all, ...m }), {});
  return { ...objectTypes, Query: guard("Query", rootFields("Query")), Mutation: guard("Mutation", rootFields("Mutation")), DateTime };
}
