/**
 * Authenticating a user (PSD2 RTS Art. 4): the password, then, when the account has a
 * second factor or the request requires strong customer authentication, that factor.
 *
 * - One verdict after every element: when a factor step follows, it follows whatever the
 *   password was, and the verdict, with one message, comes after the factor, so the answer
 *   never tells which element was wrong (Art. 4(2)).
 * - Every failed attempt counts against the case-folded username and the IP, a password and a
 *   factor alike; after the configured number (Art. 4(3)(b): at most 5) the account is
 *   blocked for the rest of the window, with the wait in the message and an audit event.
 * - An attempt that reaches the factor step is counted as failed at once and given back on
 *   success, so abandoning it (or flooding the password step) is throttled too.
 */
import type { AuditEventInput } from "../stores/audit.js";
import type { RequestIds } from "../kernel/request-context.js";
import { verify } from "@node-rs/argon2";
import { ACR_PASSWORD, ACR_SCA } from "../kernel/acr.js";
import { OAuthError } from "../kernel/errors.js";
import type { Stores } from "../stores/index.js";
import type { UserRecord } from "../stores/users.js";
import { verifyFactor, type FactorProof, type RelyingParty } from "./factors.js";
import type { PendingSignIn, SessionAuthentication } from "./session.js";
import type { SignInThrottle } from "./throttle.js";
import type { Metrics } from "../kernel/metrics.js";

/** argon2id hash (library defaults) of a discarded random password, verified against when the username is unknown, so both paths cost the same. */
const DUMMY_HASH = "$argon2id$v=19$m=19456,t=2,p=1$dUvXokNw5DJvOmhxTAaMTA$ucDXzItuIWJrZ7zmU0yr52mYo1j04gsEmrHCkE3LbJM";

/** The one message of a failed sign-in, whichever element was wrong. */
export const SIGN_IN_FAILED = "The sign-in details are incorrect.";

/** 401 `invalid_credentials` with {@link SIGN_IN_FAILED}. */
export class InvalidCredentials extends OAuthError {
  constructor() {
    super("invalid_credentials", SIGN_IN_FAILED, 401);
  }
}

/** What signing in uses. */
export interface SignInContext {
  db: Pick<Stores, "users" | "factors" | "audit">;
  throttle: SignInThrottle;
  rp: RelyingParty;
  /** Counts failed sign-ins; undefined: not counted. */
  metrics?: Metrics;
  /** The HTTP request of the sign-in (its ids go into the audit events); set per request by the router. */
  request?: RequestIds;
}

/** Records `event` in the request of `ctx`. */
function audit(ctx: SignInContext, event: AuditEventInput): Promise<void> {
  return ctx.db.audit.record({ ...event, request: ctx.request });
}

/** The outcome of the password step: signed in with the password alone, or a second factor to come. */
export type PasswordOutcome = { user: UserRecord; authentication: SessionAuthentication } | { pending: Omit<PendingSignIn, "interactionId"> };

/** The `acr` of an authentication (kernel/acr.ts): SCA when a second factor was part of it (`mfa`). */
export function acrOf(amr: readonly string[]): string {
  return amr.includes("mfa") ? ACR_SCA : ACR_PASSWORD;
}

/**
 * The password step.
 * @param scaRequired - the request needs two factors: the factor step follows for every account.
 * @returns the user signed in with `amr` ["pwd"] when the password is right and the account has
 *   no second factor; else the pending sign-in for {@link checkSecondFactor}.
 * @throws TooManyAttempts (429) when the username or IP is blocked; InvalidCredentials (401)
 *   when no factor step follows and the account is unknown or disabled or the password wrong.
 */
export async function checkPassword(ctx: SignInContext, username: string, password: string, ip: string, scaRequired: boolean, now: Date): Promise<PasswordOutcome> {
  await ctx.throttle.check(username, ip);
  const found = await ctx.db.users.byUsername(username);
  const passwordValid = await verify(found?.passwordHash ?? DUMMY_HASH, password).catch(() => false);
  const user = found?.status === "active" ? found : undefined;
  const hasFactor = user !== undefined && (await ctx.db.factors.list(user.id)).length > 0;
  if (user && passwordValid && !hasFactor) {
    await ctx.throttle.recordSuccess(username, ip, false);
    await audit(ctx, { type: "signin.succeeded", actor: `user:${user.id}`, details: { ip, amr: ["pwd"] } });
    return { user, authentication: { userId: user.id, amr: ["pwd"], authTime: now } };
  }
  if (!scaRequired && !hasFactor) {
    await failed(ctx, username, ip, found, "password");
    throw new InvalidCredentials();
  }
  await ctx.throttle.recordFailure(username, ip);
  return { pending: { username, userId: user?.id ?? null, passwordValid } };
}

/**
 * The factor step: the verdict of a pending sign-in.
 * @param challenge - the WebAuthn challenge this browser was given, if any.
 * @returns the authentication: `amr` ["pwd", <factor's values>, "mfa"], `acr` SCA.
 * @throws InvalidCredentials (401) when any element was wrong, the same whichever.
 */
export async function checkSecondFactor(
  ctx: SignInContext,
  pending: Omit<PendingSignIn, "interactionId">,
  proof: FactorProof,
  challenge: string | undefined,
  ip: string,
  now: Date,
): Promise<SessionAuthentication> {
  // No throttle check here: the attempt passed it at the password step and was counted then.
  const factorAmr = pending.userId !== null && pending.passwordValid ? await verifyFactor(ctx.db.factors, pending.userId, proof, challenge, ctx.rp, now) : undefined;
  if (pending.userId === null || factorAmr === undefined) {
    const element = pending.userId === null ? "account" : pending.passwordValid ? proof.method : "password";
    // The attempt was counted when it reached this step; only the verdict is recorded now.
    await audit(ctx, { type: "sca.failed", actor: pending.userId ? `user:${pending.userId}` : "", details: { username: pending.username.slice(0, 200), ip, failed: element } });
    ctx.metrics?.signInFailure("factor", element);
    await auditBlock(ctx, pending.username, ip, pending.userId);
    throw new InvalidCredentials();
  }
  const amr = ["pwd", ...factorAmr, "mfa"];
  await ctx.throttle.recordSuccess(pending.username, ip, true);
  await audit(ctx, { type: "sca.succeeded", actor: `user:${pending.userId}`, details: { ip, amr } });
  return { userId: pending.userId, amr, authTime: now };
}

/**
 * A signed-in user proves a second factor now (to remove a factor). A failure counts like a
 * failed sign-in.
 * @throws TooManyAttempts (429); InvalidCredentials (401) when the proof fails.
 */
export async function proveSecondFactor(ctx: SignInContext, user: UserRecord, proof: FactorProof, challenge: string | undefined, ip: string, now: Date): Promise<void> {
  await ctx.throttle.check(user.username, ip);
  if ((await verifyFactor(ctx.db.factors, user.id, proof, challenge, ctx.rp, now)) !== undefined) return;
  await failed(ctx, user.username, ip, user, proof.method);
  throw new InvalidCredentials();
}

/** Counts and audits a failed attempt, and the block it may start. */
async function failed(ctx: SignInContext, username: string, ip: string, user: UserRecord | undefined, element: string): Promise<void> {
  const blocked = await ctx.throttle.recordFailure(username, ip);
  ctx.metrics?.signInFailure(element === "password" ? "password" : "factor", element);
  await audit(ctx, {
    type: element === "password" ? "signin.failed" : "sca.failed",
    actor: user ? `user:${user.id}` : "",
    details: { username: username.slice(0, 200), ip, failed: element },
  });
  if (blocked) await audit(ctx, { type: "sca.blocked", actor: user ? `user:${user.id}` : "", details: { username: username.slice(0, 200), ip } });
}

/** Audits the block a pending attempt's failure started (its failure was counted when it began). */
async function auditBlock(ctx: SignInContext, username: string, ip: string, userId: string | null): Promise<void> {
  const blocked = await ctx.throttle.check(username, ip).then(
    () => false,
    () => true,
  );
  if (blocked) await audit(ctx, { type: "sca.blocked", actor: userId ? `user:${userId}` : "", details: { username: username.slice(0, 200), ip } });
}
