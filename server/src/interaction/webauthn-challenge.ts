/**
 * WebAuthn challenges for sign-in: issued to a browser with a pending sign-in or a session,
 * kept in its session, and answerable once (taken from the session, and its first use
 * recorded in the replay store, so two concurrent requests cannot both use it).
 */
import type { Request, RequestHandler, Response } from "express";
import { OAuthError } from "../kernel/errors.js";
import type { ReplayStore } from "../stores/replays.js";
import { authenticationOptions, WEBAUTHN_TIMEOUT_MS, type FactorProof, type RelyingParty } from "./factors.js";
import type { BrowserSessions } from "./session.js";

/**
 * `POST /session/webauthn/authentication-options`: `{options}` for `startAuthentication`.
 * @throws OAuthError 403 when this browser has neither a pending sign-in nor a signed-in user.
 */
export function webAuthnChallengeRoute(sessions: BrowserSessions, rp: RelyingParty): RequestHandler {
  return async (req: Request, res: Response) => {
    if (sessions.peek(req, "pendingSignIn") === undefined && sessions.authentication(req) === undefined) {
      throw new OAuthError("access_denied", "sign in with your username and password first", 403);
    }
    const options = await authenticationOptions(rp);
    await sessions.stash(req, "webauthnChallenge", options.challenge, WEBAUTHN_TIMEOUT_MS / 1000);
    res.json({ options });
  };
}

/**
 * The challenge a WebAuthn proof answers, used up; undefined for a TOTP proof, or when the
 * browser has no unexpired challenge or it was used already.
 */
export async function takeChallenge(sessions: BrowserSessions, replays: ReplayStore, req: Request, proof: FactorProof, now: Date): Promise<string | undefined> {
  if (proof.method !== "webauthn") return undefined;
  const challenge = await sessions.take(req, "webauthnChallenge");
  if (challenge === undefined) return undefined;
  const firstUse = await replays.firstUse(`webauthn:${challenge}`, new Date(now.getTime() + WEBAUTHN_TIMEOUT_MS), now);
  return firstUse ? challenge : undefined;
}
