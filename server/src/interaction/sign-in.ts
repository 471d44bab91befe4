/**
 * Authenticating a user (PSD2 RTS Art. 4): the password, then, when the account has a
 * second factor or the request requires strong customer authentication, that factor.
 *
 * - One verdict after every element: when a factor step follows, it follows whatever the
 *   password was, and the verdict, with one message, comes after the factor, so the answer
 *   never tells which element was wrong (Art. 4(2)).
 * - Every attempt is counted against the case-folded username and the IP before it is
 *   evaluated, atomically (interaction/throttle.ts), and stays counted as failed unless it
 *   succeeds; after the configured number (Art. 4(3)(b): at most 5) the account is blocked for
 *   the rest of the window, with the wait in the message and an audit event. Parallel
 *   attempts are therefore evaluated no more often than sequential ones.
 * - An attempt that reaches the factor step stays counted until the factor succeeds, so
 *   abandoning it (or flooding the password step) is throttled too; its factor step is
 *   answered once (the replay store), so parallel answers to one password step are not each
 *   evaluated.
 */
import type { AuditEventInput } from "../stores/audit.js";
import { randomUUID } from "node:crypto";
import type { RequestIds } from "../kernel/request-context.js";
import { verify } from "@node-rs/argon2";
import { ACR_PASSWORD, ACR_SCA } from "../kernel/acr.js";
import { InvalidRequest, OAuthError } from "../kernel/errors.js";
import type { Stores } from "../stores/index.js";
import type { UserRecord } from "../stores/users.js";
import { verifyFactor, type FactorProof, type RelyingParty } from "./factors.js";
import type { PendingSignIn, SessionAuthentication } from "./session.js";
import type { Attempt, SignInThrottle } from "./throttle.js";
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

/** 409 `invalid_request`: the pending sign-in was answered already (or has expired); the password comes first again. */
export class AttemptOver extends InvalidRequest {
  constructor() {
    super("this sign-in attempt is over: enter your username and password again", 409);
  }
}

/** What signing in uses. */
export interface SignInContext {
  db: Pick<Stores, "users" | "factors" | "audit" | "replays">;
  throttle: SignInThrottle;
  /** How long a pending sign-in waits for its second factor, seconds. */
  factorStepSeconds: number;
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

/** Whether the user's password is a temporary one (an administrator's, interaction/password-change.ts) past its end: refused like a wrong one. */
export const temporaryPasswordExpired = (user: Pick<UserRecord, "temporaryPasswordUntil">, now: Date): boolean =>
  user.temporaryPasswordUntil !== null && user.temporaryPasswordUntil.getTime() <= now.getTime();

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
 *   when no factor step follows and the account is unknown or disabled or the password wrong
 *   (a temporary one past its end is wrong).
 */
export async function checkPassword(ctx: SignInContext, username: string, password: string, ip: string, scaRequired: boolean, now: Date): Promise<PasswordOutcome> {
  const attempt = await ctx.throttle.begin(username, ip);
  const found = await ctx.db.users.byUsername(username);
  const passwordValid = (await verify(found?.passwordHash ?? DUMMY_HASH, password).catch(() => false)) && !(found && temporaryPasswordExpired(found, now));
  const user = found?.status === "active" ? found : undefined;
  const hasFactor = user !== undefined && (await ctx.db.factors.list(user.id)).length > 0;
  if (user && passwordValid && !hasFactor) {
    await ctx.throttle.succeeded(username, ip);
    await audit(ctx, { type: "signin.succeeded", actor: `user:${user.id}`, details: { ip, amr: ["pwd"] } });
    return { user, authentication: { userId: user.id, amr: ["pwd"], authTime: now } };
  }
  if (!scaRequired && !hasFactor) {
    await failed(ctx, username, ip, found, "password", attempt);
    throw new InvalidCredentials();
  }
  // The attempt stays counted as failed until its factor step succeeds.
  return { pending: { username, userId: user?.id ?? null, passwordValid, attemptId: randomUUID(), lastAttempt: attempt.last } };
}

/**
 * The factor step: the verdict of a pending sign-in.
 * @param challenge - the WebAuthn challenge this browser was given, if any.
 * @returns the authentication: `amr` ["pwd", <factor's values>, "mfa"], `acr` SCA.
 * @throws AttemptOver (409) when this pending sign-in was answered already, here or on another
 *   instance; InvalidCredentials (401) when any element was wrong, the same whichever.
 */
export async function checkSecondFactor(
  ctx: SignInContext,
  pending: Omit<PendingSignIn, "interactionId">,
  proof: FactorProof,
  challenge: string | undefined,
  ip: string,
  now: Date,
): Promise<SessionAuthentication> {
  // No throttle here: the attempt was counted at the password step, and is answered once.
  const answerableUntil = new Date(now.getTime() + ctx.factorStepSeconds * 1000);
  if (!(await ctx.db.replays.firstUse(`signin:${pending.attemptId}`, answerableUntil, now))) throw new AttemptOver();
  const factorAmr = pending.userId !== null && pending.passwordValid ? await verifyFactor(ctx.db.factors, pending.userId, proof, challenge, ctx.rp, now) : undefined;
  if (pending.userId === null || factorAmr === undefined) {
    const element = pending.userId === null ? "account" : pending.passwordValid ? proof.method : "password";
    // The attempt was counted when it reached this step; only the verdict is recorded now.
    await audit(ctx, { type: "sca.failed", actor: pending.userId ? `user:${pending.userId}` : "", details: { username: pending.username.slice(0, 200), ip, failed: element } });
    ctx.metrics?.signInFailure("factor", element);
    if (pending.lastAttempt) await auditBlock(ctx, pending.username, ip, pending.userId);
    throw new InvalidCredentials();
  }
  const amr = ["pwd", ...factorAmr, "mfa"];
  await ctx.throttle.succeeded(pending.username, ip);
  await audit(ctx, { type: "sca.succeeded", actor: `user:${pending.userId}`, details: { ip, amr } });
  return { userId: pending.userId, amr, authTime: now };
}

/**
 * A signed-in user proves a second factor now (to remove a factor), counted like a sign-in
 * attempt before it is evaluated.
 * @throws TooManyAttempts (429); InvalidCredentials (401) when the proof fails.
 */
export async function proveSecondFactor(ctx: SignInContext, user: UserRecord, proof: FactorProof, challenge: string | undefined, ip: string, now: Date): Promise<void> {
  const attempt = await ctx.throttle.begin(user.username, ip);
  if ((await verifyFactor(ctx.db.factors, user.id, proof, challenge, ctx.rp, now)) !== undefined) {
    await ctx.throttle.succeeded(user.username, ip);
    return;
  }
  await failed(ctx, user.username, ip, user, proof.method, attempt);
  throw new InvalidCredentials();
}

/** Audits a failed attempt (counted when it began), and the block it starts when it was the last. */
async function failed(ctx: SignInContext, username: string, ip: string, user: UserRecord | undefined, element: string, attempt: Attempt): Promise<void> {
  ctx.metrics?.signInFailure(element === "password" ? "password" : "factor", element);
  await audit(ctx, {
    type: element === "password" ? "signin.failed" : "sca.failed",
    actor: user ? `user:${user.id}` : "",
    details: { username: username.slice(0, 200), ip, failed: element },
  });
  if (attempt.last) await auditBlock(ctx, username, ip, user?.id ?? null);
}

/** Audits the block that the failure of a user's last attempt starts. */
function auditBlock(ctx: SignInContext, username: string, ip: string, userId: string | null): Promise<void> {
  return audit(ctx, { type: "sca.blocked", actor: userId ? `user:${userId}` : "", details: { username: username.slice(0, 200), ip } });
}
