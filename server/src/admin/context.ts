/**
 * Who is calling the admin API, and the guards resolvers use. An admin is a signed-in
 * user with role `admin` (session cookie) or a client holding a live bearer token with the
 * `admin` scope (automation). Errors follow Apollo's codes in `extensions.code`.
 */
import type { RequestIds } from "../kernel/request-context.js";
import type { Request } from "express";
import { GraphQLError } from "graphql";
import { OAuthError } from "../kernel/errors.js";
import { isStaffRole, type StaffRole } from "../kernel/roles.js";
import { bearerToken } from "../oauth/bearer.js";
import { ADMIN_SCOPE } from "../oauth/scopes.js";
import { findPresentedToken } from "../oauth/tokens.js";
import type { Federation } from "../federation/upstream.js";
import type { Keyring } from "../keys/keyring.js";
import type { RotationSettings } from "../keys/rotation.js";
import type { Database, Stores } from "../stores/index.js";
import type { SignInThrottle } from "../interaction/throttle.js";
import type { Metrics } from "../kernel/metrics.js";

/** A user signed in to the browser session. */
export interface SignedInUser {
  kind: "user";
  userId: string;
  username: string;
  /** user | admin | support | auditor */
  role: string;
  /** The session's sign-in was strong customer authentication (a second factor, `amr` mfa). */
  sca: boolean;
}

/** Who calls: a signed-in user, or a client by the bearer token it sent (its live scopes). */
export type Actor = SignedInUser | { kind: "client"; clientId: string; scopes: string[] };

export interface AdminContext {
  db: Database;
  actor: Actor | null;
  /** ADMIN_REQUIRE_SCA: a staff user acts in their role only after a sign-in with their second factor. */
  requireSca: boolean;
  /** The HTTP request's ids, for the audit events of its mutations. */
  request: RequestIds | undefined;
  /** ALLOW_LINK_LOCAL_UPSTREAMS: an API's upstream URL may be a link-local or cloud metadata address. */
  allowLinkLocalUpstreams: boolean;
  /** This server's signing keys, for their rotation on demand (keys/keyring.ts). */
  keyring: Keyring;
  /** When signing keys rotate (keys/setup.ts rotationSettings): when a next key may sign. */
  rotation: RotationSettings;
  /** The sign-in at the bank's identity providers (federation/upstream.ts): seals their client secrets, and names Tollgate's redirect URI there. */
  federation: Pick<Federation, "sealClientSecret" | "redirectUri">;
  /** Tollgate's JWK Set URL (`<AUTH_URL>/oauth2/v1/jwks`), which an identity provider reads for private_key_jwt. */
  jwksUri: string;
  /** The sign-in throttle (interaction/throttle.ts): a user's block, and ending it. */
  throttle: Pick<SignInThrottle, "blockedUntil" | "unblock">;
  /** TEMPORARY_PASSWORD_HOURS: how long a temporary password set by an administrator signs in. */
  temporaryPasswordHours: number;
  /** This server's Prometheus metrics (METRICS_PORT), which the dashboard's latency figures read; undefined when off. */
  metrics?: Metrics;
}

/**
 * A GraphQL error with `extensions.code`.
 * @param httpStatus - for errors that refuse the whole request (not one field), the HTTP status.
 */
export function gqlError(
  code: "UNAUTHENTICATED" | "FORBIDDEN" | "BAD_USER_INPUT" | "NOT_FOUND" | "CONFLICT",
  message: string,
  httpStatus?: number,
): GraphQLError {
  return new GraphQLError(message, { extensions: { code, ...(httpStatus ? { http: { status: httpStatus } } : {}) } });
}

/**
 * Resolves the caller: a bearer token when an Authorization header is sent (any other
 * scheme, an invalid token, or a DPoP-bound one, is UNAUTHENTICATED), else the session's
 * active user.
 */
export async function resolveActor(db: Pick<Stores, "tokens" | "clients" | "users">, req: Request, realm: string): Promise<Actor | null> {
  if (req.headers.authorization !== undefined) {
    let token;
    try {
      token = await findPresentedToken(db, bearerToken(req.headers.authorization, realm), new Date());
    } catch (err) {
      if (!(err instanceof OAuthError)) throw err;
    }
    if (!token?.active) throw gqlError("UNAUTHENTICATED", "invalid, expired or revoked bearer token");
    // A DPoP-bound token is good only with a proof of its key (RFC 9449 §7), which the admin API does not take.
    if (token.jkt !== null) throw gqlError("UNAUTHENTICATED", "this access token is DPoP-bound: the admin API takes bearer tokens only");
    return { kind: "client", clientId: token.clientId, scopes: token.scopes };
  }
  const userId = req.session?.userId;
  const user = userId ? await db.users.byId(userId) : undefined;
  return user && user.status === "active" ? { kind: "user", userId: user.id, username: user.username, role: user.role, sca: (req.session.amr ?? []).includes("mfa") } : null;
}

/**
 * The role a caller acts in: a client holding the `admin` scope is an admin; a signed-in user
 * their role when it is a staff role, and, with ADMIN_REQUIRE_SCA, only after a sign-in with
 * their second factor (EBA/GL/2019/04: strong authentication for privileged access).
 * @returns null for anyone else.
 */
export function staffRoleOf(actor: Actor | null, requireSca: boolean): StaffRole | null {
  if (actor === null) return null;
  if (actor.kind === "client") return actor.scopes.includes(ADMIN_SCOPE) ? "admin" : null;
  return isStaffRole(actor.role) && (actor.sca || !requireSca) ? actor.role : null;
}

/**
 * The caller's staff role.
 * @throws UNAUTHENTICATED without a caller; FORBIDDEN for a caller without a staff role, or a
 *   staff user signed in without their second factor while ADMIN_REQUIRE_SCA is on.
 */
export function requireStaff(ctx: AdminContext): StaffRole {
  const { actor } = ctx;
  if (!actor) throw gqlError("UNAUTHENTICATED", "sign in as an administrator or send an admin bearer token");
  const role = staffRoleOf(actor, ctx.requireSca);
  if (role !== null) return role;
  const unverified = actor.kind === "user" && isStaffRole(actor.role) && !actor.sca;
  throw gqlError("FORBIDDEN", unverified ? "sign in with your second factor: the console needs strong authentication (ADMIN_REQUIRE_SCA)" : "administrator rights required");
}

/** How the audit log names a staff caller: `admin:<username>` (whatever their role) or `client:<client id>`. */
export function staffLabel(ctx: AdminContext): string {
  requireStaff(ctx);
  const actor = ctx.actor!;
  return actor.kind === "user" ? `admin:${actor.username}` : `client:${actor.clientId}`;
}

/** @returns the signed-in user. @throws UNAUTHENTICATED when no user is signed in. */
export function requireUser(ctx: AdminContext): SignedInUser {
  if (ctx.actor?.kind !== "user") throw gqlError("UNAUTHENTICATED", "sign in first");
  return ctx.actor;
}
