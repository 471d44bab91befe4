/**
 * A signed-in user's own second factors, for the Account page (`/session/factors`):
 * listing, enrolling a TOTP key or a passkey, and removing one.
 *
 * - Enrolling needs a fresh sign-in: at most the inactivity limit since the session's
 *   authentication (RTS Art. 4(3)(d)); otherwise 401 `login_required`, and the page signs
 *   the user in again.
 * - Removing needs a second factor now (any enrolled one), checked and throttled like a sign-in.
 * - Every change is audited (`factor.enrolled`, `factor.removed`).
 */
import { inRequest } from "./in-request.js";
import { contextOf } from "../kernel/request-context.js";
import express, { Router, type Request, type Response } from "express";
import { z } from "zod";
import { Conflict } from "../kernel/domain-errors.js";
import { InvalidRequest, OAuthError } from "../kernel/errors.js";
import type { Stores } from "../stores/index.js";
import type { FactorSummary } from "../stores/factors.js";
import type { UserRecord } from "../stores/users.js";
import { factorName, factorProof, parseBody, parseRegistration } from "./bodies.js";
import { confirmTotp, newTotpEnrolment, registrationOptions, verifyRegistration, WEBAUTHN_TIMEOUT_MS } from "./factors.js";
import type { BrowserSessions, SessionAuthentication } from "./session.js";
import { proveSecondFactor, type SignInContext } from "./sign-in.js";
import { takeChallenge } from "./webauthn-challenge.js";

/** How long a TOTP key shown for enrolment may be confirmed, seconds. */
const TOTP_ENROLMENT_SECONDS = 600;

/** Factor ids are cuids. */
const FACTOR_ID = /^[a-z0-9]{1,64}$/;

const confirmTotpBody = z.object({ code: z.string().max(32), name: factorName.optional() });

/** A factor as the Account page shows it. */
function view(f: FactorSummary) {
  return { id: f.id, type: f.type, name: f.name, createdAt: f.createdAt.toISOString(), lastUsedAt: f.lastUsedAt?.toISOString() ?? null };
}

/**
 * Builds the router mounted at `/session/factors` (behind the session middleware).
 * @param idleSeconds - how long after authenticating a sign-in counts as fresh, seconds.
 */
export function accountFactorsRouter(db: Pick<Stores, "users" | "factors" | "audit" | "replays">, sessions: BrowserSessions, signIn: SignInContext, idleSeconds: number): Router {
  const router = Router();
  const json = express.json({ limit: "16kb" });

  /** The signed-in, active user. @throws OAuthError 401 `login_required` when there is none. */
  async function signedIn(req: Request): Promise<{ user: UserRecord; authentication: SessionAuthentication }> {
    const authentication = sessions.authentication(req);
    const user = authentication && (await db.users.byId(authentication.userId));
    if (!authentication || user?.status !== "active") throw new OAuthError("login_required", "Sign in first.", 401);
    return { user, authentication };
  }

  /** When the session's sign-in stops counting as fresh. */
  const freshUntil = (a: SessionAuthentication) => new Date(a.authTime.getTime() + idleSeconds * 1000);

  /** The signed-in user, after a fresh sign-in. @throws OAuthError 401 `login_required` otherwise. */
  async function freshlySignedIn(req: Request, now: Date): Promise<UserRecord> {
    const { user, authentication } = await signedIn(req);
    if (freshUntil(authentication) < now) throw new OAuthError("login_required", "Sign in again to change your sign-in methods.", 401);
    return user;
  }

  async function enrolled(req: Request, user: UserRecord, factor: FactorSummary): Promise<void> {
    await db.audit.record({
      type: "factor.enrolled",
      actor: `user:${user.id}`,
      subject: user.id,
      details: { factorId: factor.id, type: factor.type, name: factor.name },
      request: contextOf(req),
    });
  }

  router.get("/", async (req: Request, res: Response) => {
    const { user, authentication } = await signedIn(req);
    res.json({ factors: (await db.factors.list(user.id)).map(view), freshUntil: freshUntil(authentication).toISOString() });
  });

  router.post("/totp", json, sessions.requireCsrf, async (req: Request, res: Response) => {
    const user = await freshlySignedIn(req, new Date());
    const enrolment = await newTotpEnrolment(user.username, signIn.rp.name);
    await sessions.stash(req, "totpEnrolment", enrolment.secret, TOTP_ENROLMENT_SECONDS);
    res.json(enrolment);
  });

  router.post("/totp/confirm", json, sessions.requireCsrf, async (req: Request, res: Response) => {
    const { code, name } = parseBody(confirmTotpBody, req.body);
    const now = new Date();
    const user = await freshlySignedIn(req, now);
    const secret = sessions.peek(req, "totpEnrolment");
    if (secret === undefined) throw new InvalidRequest("the key to confirm has expired: set up the authenticator app again", 409);
    const step = await confirmTotp(secret, code, now);
    if (step === undefined) throw new OAuthError("invalid_code", "The code is incorrect: enter the code your authenticator app shows now.", 400);
    await sessions.take(req, "totpEnrolment");
    const factor = await db.factors.insert({ type: "totp", userId: user.id, name: name ?? "Authenticator app", secret, lastTimeStep: step }, now);
    await enrolled(req, user, factor);
    res.json({ factor: view(factor) });
  });

  router.post("/webauthn/registration-options", json, sessions.requireCsrf, async (req: Request, res: Response) => {
    const user = await freshlySignedIn(req, new Date());
    const options = await registrationOptions(db.factors, signIn.rp, user);
    await sessions.stash(req, "webauthnChallenge", options.challenge, WEBAUTHN_TIMEOUT_MS / 1000);
    res.json({ options });
  });

  router.post("/webauthn", json, sessions.requireCsrf, async (req: Request, res: Response) => {
    const { response, name } = parseRegistration(req.body);
    const now = new Date();
    const user = await freshlySignedIn(req, now);
    const challenge = await sessions.take(req, "webauthnChallenge");
    const factor = challenge === undefined ? undefined : await verifyRegistration(signIn.rp, user.id, name ?? "Passkey", response, challenge);
    if (!factor) throw new OAuthError("invalid_registration", "The passkey could not be registered: try again.", 400);
    const stored = await db.factors.insert(factor, now).catch((err: unknown) => {
      throw err instanceof Conflict ? new OAuthError("invalid_registration", "This passkey is already registered.", 409) : err;
    });
    await enrolled(req, user, stored);
    res.json({ factor: view(stored) });
  });

  router.post("/:id/remove", json, sessions.requireCsrf, async (req: Request<{ id: string }>, res: Response) => {
    const proof = factorProof(req.body);
    const now = new Date();
    const { user } = await signedIn(req);
    const factor = FACTOR_ID.test(req.params.id) ? (await db.factors.list(user.id)).find((f) => f.id === req.params.id) : undefined;
    if (!factor) throw new OAuthError("not_found", "you have no sign-in method with this id", 404);
    await proveSecondFactor(inRequest(signIn, req), user, proof, await takeChallenge(sessions, db.replays, req, proof, now), req.ip ?? "unknown", now);
    await db.factors.delete(user.id, factor.id);
    await db.audit.record({ type: "factor.removed", actor: `user:${user.id}`, subject: user.id, details: { factorId: factor.id, type: factor.type }, request: contextOf(req) });
    res.json({ factors: (await db.factors.list(user.id)).map(view) });
  });

  return router;
}
