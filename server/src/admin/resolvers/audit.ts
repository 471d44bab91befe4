/**
 * The audit event of an admin mutation, as every admin use case records it with its change.
 */
import type { GraphQLResolveInfo } from "graphql";
import type { AuditEventInput } from "../../stores/audit.js";
import { staffLabel, type AdminContext } from "../context.js";

/** Arguments naming what a mutation changes, in order of preference, for the audit log. */
const SUBJECT_ARGS = ["id", "appId", "credentialId", "userId"];

/**
 * The audit event of the admin mutation being resolved: type `admin.<field>`, the caller as
 * actor (`admin:<username>` or `client:<client id>`), the first of the `id`, `appId`,
 * `credentialId`, `userId` arguments as subject, and the arguments as details (`{ args }`,
 * passwords and client secrets replaced by "[redacted]"), in the HTTP request's context (its ids).
 * @throws UNAUTHENTICATED or FORBIDDEN when the caller is not an admin (context.ts requireStaff).
 */
export function adminEvent(args: object, ctx: AdminContext, info: GraphQLResolveInfo): AuditEventInput {
  const named = args as Record<string, unknown>;
  const subject = SUBJECT_ARGS.map((k) => named[k]).find((v): v is string => typeof v === "string");
  return { type: `admin.${info.fieldName}`, actor: staffLabel(ctx), subject, details: { args: redact(args) }, request: ctx.request };
}

/** Arguments that hold secrets: a user's password, Tollgate's client secret at an identity provider. */
const SECRET_ARGS = new Set(["password", "clientSecret"]);

/** Arguments as logged: secrets replaced (a null one stays null: it says none was given). */
function redact(args: object): unknown {
  return JSON.parse(JSON.stringify(args, (key, value: unknown) => (SECRET_ARGS.has(key) && value != null ? "[redacted]" : value)));
}
