/**
 * HTTP glue of the authorization code flow: `GET /authorize` (RFC 6749 §4.1.1), the JSON
 * interaction API the SPA's sign-in (password, then second factor) and consent pages call,
 * and the console's plain session sign-in (`/session`). Handlers only read the request, call
 * flow.ts and sign-in.ts and write the answer.
 */
import { inRequest } from "./in-request.js";
import express, { Router, type Request, type Response } from "express";
import type { Config } from "../config.js";
import { InvalidRequest, MethodNotAllowed, OAuthError } from "../kernel/errors.js";
import { consumeRateLimit, type LimiterFactory } from "../kernel/limiter.js";
import type { Metrics } from "../kernel/metrics.js";
import { CODE_LIFETIME_SECONDS, validateAuthorizationRequest } from "../oauth/authorize.js";
import { sendAuthorizationRedirect } from "../oauth/form-post.js";
import { FEDERATION_CALLBACK_PATH, FEDERATION_START_PATH, type Federation } from "../federation/upstream.js";
import type { InteractionRecord } from "../stores/interactions.js";
import type { Stores } from "../stores/index.js";
import { DELEGATION_PATH, delegateLogin, delegationRouter } from "./delegation.js";
import { answerFromUpstream, sendUpstream } from "./upstream-sign-in.js";
import type { IdTokenHints } from "../oauth/id-token.js";
import type { Subjects } from "../oauth/subject.js";
import { FORM_POST_PATH, type AuthorizationResponder } from "../oauth/authorization-response.js";
import { afterLogout, endsAtOnce, LOGOUT_PAGE, logoutParameters, readLogoutRequest } from "../oidc/logout.js";
import { END_SESSION_PATH } from "../kernel/paths.js";
import {
  completeAuthentication,
  completeConsent,
  enterFactorStage,
  openInteraction,
  startFlow,
  viewInteraction,
  type FlowContext,
  type FlowStores,
  type StepResult,
} from "./flow.js";
import { accountFactorsRouter } from "./account-factors.js";
import { relyingParty } from "./factors.js";
import { consentBody, factorProof, loginBody, parseBody } from "./bodies.js";
import type { BrowserSessions, PendingPasswordChange } from "./session.js";
import type { AccountDirectory } from "../consents/accounts.js";
import { AttemptOver, checkPassword, checkSecondFactor, InvalidCredentials, type SignInContext } from "./sign-in.js";
import type { SignInThrottle } from "./throttle.js";
import { takeChallenge, webAuthnChallengeRoute } from "./webauthn-challenge.js";
import { requestObjects } from "../oauth/request-object.js";
import { contextOf } from "../kernel/request-context.js";
import { chooseNewPassword, mustChangePassword, newPasswordBody, pendingPasswordChange } from "./password-change.js";

/**
 * Builds the router for /authorize, /interaction/*, /session and /session/factors.
 * @param sessions - the browser sessions (their middleware is shared with the admin API).
 * @param limiters - makes the authorization requests' counters.
 * @param throttle - the sign-in throttle (RTS Art. 4(3)(b)), shared with the admin API, which shows and ends blocks.
 * @param accounts - the PSUs' payment accounts, listed on the consent page of a PSD2 consent.
 * @param federation - signs PSUs in at the bank's identity providers (federation/upstream.ts).
 * @param metrics - counts sign-in failures and rate-limit refusals; undefined: nothing counted.
 */
export function interactionRouter(
  config: Config,
  db: FlowStores & Pick<Stores, "tokens">,
  sessions: BrowserSessions,
  limiters: LimiterFactory,
  throttle: SignInThrottle,
  accounts: AccountDirectory,
  openId: { hints: IdTokenHints; subjects: Subjects; keyring: AuthorizationResponder["keyring"] },
  federation: Federation,
  metrics?: Metrics,
): Router {
  // Request objects sent by value (RFC 9101 §5.1).
  const objects = requestObjects(config.authUrl, db.replays, config.tppAddresses);
  const ctx: FlowContext = { db, responder: { issuer: config.authUrl, keyring: openId.keyring, clients: db.clients, evidence: db.evidence }, interactionTtlSeconds: config.interactionTtlSeconds, idleSeconds: config.sca.idleSeconds, accounts, paymentConsentLifetimeSeconds: config.paymentConsentLifetimeSeconds, subjects: openId.subjects, loginDelegated: config.delegation !== undefined };
  const signIn: SignInContext = {
    db,
    throttle,
    factorStepSeconds: config.interactionTtlSeconds,
    rp: relyingParty(config.authUrl, config.brand.name),
    metrics,
  };
  const authorizeRefused = metrics && (() => metrics.rateLimited("authorize-ip"));
  const router = Router();
  const limitAuthorize = config.authorizeRateLimitPerIp > 0 ? limiters("authorize-ip", config.authorizeRateLimitPerIp, 60) : undefined;
  const { requireCsrf } = sessions;
  router.use(["/authorize", "/interaction", "/session", "/federation", END_SESSION_PATH], sessions.middleware, (_req, res, next) => {
    res.set("Cache-Control", "no-store");
    next();
  });
  const json = express.json({ limit: "4kb" });
  /** WebAuthn responses carry a signature, authenticator data and client data: a larger body. */
  const factorJson = express.json({ limit: "16kb" });
  const ip = (req: Request) => req.ip ?? "unknown";

  router.get("/authorize", async (req: Request, res: Response) => {
    const query = req.originalUrl.includes("?") ? req.originalUrl.slice(req.originalUrl.indexOf("?") + 1) : "";
    const request = await validateAuthorizationRequest(db, openId.hints, objects, config.baseUrl, query, ctx.responder, new Date());
    if (limitAuthorize) await consumeRateLimit(limitAuthorize, ip(req), authorizeRefused);
    // With login delegated to the bank's application, Tollgate's own sessions sign no PSU in.
    const delegated = config.delegation !== undefined && request.identityProviderId === null;
    const started = await startFlow(ctx, request, delegated ? undefined : sessions.authentication(req), new Date());
    if ("redirectTo" in started) {
      sendAuthorizationRedirect(res, started);
      return;
    }
    const { interaction } = started;
    await sessions.addInteraction(req, res, interaction.id);
    if (interaction.identityProviderId !== null && interaction.stage === "login") {
      await goUpstream(req, res, interaction, request.maxAge);
      return;
    }
    if (config.delegation && interaction.stage === "login") {
      res.redirect(302, (await delegateLogin(ctx, config.delegation.loginUrl, interaction)) ?? `/login?interaction=${encodeURIComponent(interaction.id)}`);
      return;
    }
    res.redirect(302, `/${interaction.stage}?interaction=${encodeURIComponent(interaction.id)}`);
  });

  /** Sends the browser to sign in at the interaction's identity provider, or back to the TPP when it cannot be reached. */
  async function goUpstream(req: Request, res: Response, interaction: InteractionRecord, maxAge: number | null): Promise<void> {
    const next = await sendUpstream(inRequest(ctx, req), federation, interaction, maxAge, new Date());
    if (next === undefined) throw new InvalidRequest("this sign-in request is not at the login step", 409);
    if (typeof next === "string") res.redirect(302, next);
    else sendAuthorizationRedirect(res, next);
  }

  // The sign-in page of an interaction whose PSU signs in at the bank's identity provider sends them there again.
  router.get(FEDERATION_START_PATH, async (req: Request, res: Response) => {
    const id = typeof req.query.interaction === "string" ? req.query.interaction : "";
    const interaction = await openInteraction(db.interactions, id, sessions.browser(req), new Date());
    if (interaction.identityProviderId === null) throw new InvalidRequest("this sign-in request does not sign in at an identity provider");
    await goUpstream(req, res, interaction, null);
  });

  // The identity provider's answer (OpenID Connect Core §3.1.2.5): found by its state, in the browser that started it, used once.
  router.get(FEDERATION_CALLBACK_PATH, async (req: Request, res: Response) => {
    const now = new Date();
    const callback = new URL(req.originalUrl, config.authUrl);
    const taken = await federation.interactionOf(callback);
    if (!taken) throw new OAuthError("expired", "this answer of the bank's sign-in is unknown, expired or already used; start again from the application", 410);
    const interaction = await openInteraction(db.interactions, taken.id, sessions.browser(req), now);
    const answered = await answerFromUpstream(inRequest(ctx, req), federation, interaction, callback, now);
    if ("redirectTo" in answered) {
      sendAuthorizationRedirect(res, answered);
      return;
    }
    await sessions.signIn(req, res, answered.authentication, answered.user.role);
    const result = await completeAuthentication(inRequest(ctx, req), interaction, "login", answered.user, answered.authentication, now);
    if ("stage" in result) res.redirect(302, `/consent?interaction=${encodeURIComponent(interaction.id)}`);
    else sendAuthorizationRedirect(res, result);
  });

  if (config.delegation) router.use(DELEGATION_PATH, delegationRouter(config, ctx, db, config.delegation));

  router.all("/authorize", () => {
    throw new MethodNotAllowed(["GET"]);
  });

  // Where a step answered as JSON sends the browser for a form_post.jwt answer: the page that posts it, once.
  router.get(FORM_POST_PATH, async (req: Request, res: Response) => {
    const formPost = await sessions.take(req, "formPost");
    if (!formPost) {
      res.redirect(302, `/error?${new URLSearchParams({ error: "expired", error_description: "this answer to the application was already sent or has expired; start again from the application" })}`);
      return;
    }
    sendAuthorizationRedirect(res, { redirectTo: FORM_POST_PATH, formPost });
  });

  /**
   * A step's JSON answer: a form_post.jwt answer is kept in the session, for {@link FORM_POST_PATH}
   * to post within the lifetime of the code it carries; the browser is sent there.
   */
  async function stepAnswer(req: Request, result: StepResult): Promise<StepResult> {
    if (!("redirectTo" in result) || !result.formPost) return result;
    await sessions.stash(req, "formPost", result.formPost, CODE_LIFETIME_SECONDS);
    return { redirectTo: result.redirectTo };
  }

  router.get("/interaction/:id", async (req: Request<{ id: string }>, res: Response) => {
    const interaction = await openInteraction(db.interactions, req.params.id, sessions.browser(req), new Date());
    const user = interaction.userId ? await db.users.byId(interaction.userId) : undefined;
    const view = await viewInteraction(ctx, interaction, user);
    res.json({ ...view, csrfToken: await sessions.csrfToken(req, res) });
  });

  router.post("/interaction/:id/login", json, requireCsrf, async (req: Request<{ id: string }>, res: Response) => {
    const { username, password } = parseBody(loginBody, req.body);
    const now = new Date();
    const interaction = await openInteraction(db.interactions, req.params.id, sessions.browser(req), now);
    if (interaction.stage !== "login") throw new InvalidRequest("this sign-in request is not at the login step", 409);
    if (interaction.identityProviderId !== null || config.delegation) throw new InvalidRequest("this sign-in request signs in at the bank, not with a password here", 409);
    const outcome = await checkPassword(inRequest(signIn, req), username, password, ip(req), interaction.scaRequired, now);
    if ("pending" in outcome) {
      await enterFactorStage(ctx, interaction);
      const csrfToken = await sessions.beginSignIn(req, res, { ...outcome.pending, interactionId: interaction.id }, signIn.factorStepSeconds);
      res.json({ stage: "factor", csrfToken });
      return;
    }
    if (mustChangePassword(outcome.user)) {
      res.json(await askNewPassword(req, res, pendingPasswordChange(outcome.authentication, interaction.id, "login")));
      return;
    }
    const csrfToken = await sessions.signIn(req, res, outcome.authentication, outcome.user.role);
    const result = await stepAnswer(req, await completeAuthentication(ctx, interaction, "login", outcome.user, outcome.authentication, now));
    res.json("stage" in result ? { ...result, csrfToken } : result);
  });

  router.post("/interaction/:id/factor", factorJson, requireCsrf, async (req: Request<{ id: string }>, res: Response) => {
    const proof = factorProof(req.body);
    const now = new Date();
    const interaction = await openInteraction(db.interactions, req.params.id, sessions.browser(req), now);
    if (interaction.stage !== "factor") throw new InvalidRequest("this sign-in request is not at the second factor step", 409);
    const pending = await sessions.take(req, "pendingSignIn");
    if (pending?.interactionId !== interaction.id) {
      await db.interactions.restartLogin(interaction.id, "factor");
      throw new AttemptOver();
    }
    const challenge = await takeChallenge(sessions, db.replays, req, proof, now);
    const authentication = await checkSecondFactor(inRequest(signIn, req), pending, proof, challenge, ip(req), now).catch(async (err: unknown) => {
      if (err instanceof InvalidCredentials) await db.interactions.restartLogin(interaction.id, "factor");
      throw err;
    });
    const user = await db.users.byId(authentication.userId);
    if (!user) throw new InvalidCredentials();
    if (mustChangePassword(user)) {
      res.json(await askNewPassword(req, res, pendingPasswordChange(authentication, interaction.id, "factor")));
      return;
    }
    const csrfToken = await sessions.signIn(req, res, authentication, user.role);
    const result = await stepAnswer(req, await completeAuthentication(ctx, interaction, "factor", user, authentication, now));
    res.json("stage" in result ? { ...result, csrfToken } : result);
  });

  // The new password after a temporary one: then the sign-in goes on as it would have.
  router.post("/interaction/:id/password", json, requireCsrf, async (req: Request<{ id: string }>, res: Response) => {
    const { password } = parseBody(newPasswordBody, req.body);
    const now = new Date();
    const interaction = await openInteraction(db.interactions, req.params.id, sessions.browser(req), now);
    const pending = sessions.peek(req, "passwordChange");
    if (pending?.interactionId !== interaction.id || pending.from !== interaction.stage) {
      if (interaction.stage === "factor") await db.interactions.restartLogin(interaction.id, "factor");
      throw new AttemptOver();
    }
    const { user, authentication } = await chooseNewPassword(db, pending, password, now, contextOf(req));
    await sessions.take(req, "passwordChange");
    const csrfToken = await sessions.signIn(req, res, authentication, user.role);
    const result = await stepAnswer(req, await completeAuthentication(ctx, interaction, pending.from, user, authentication, now));
    res.json("stage" in result ? { ...result, csrfToken } : result);
  });

  /** Holds a finished sign-in until its new password is chosen (interaction/password-change.ts): the answer sends the browser to that step. */
  async function askNewPassword(req: Request, res: Response, pending: PendingPasswordChange): Promise<{ stage: "password"; csrfToken: string }> {
    await sessions.stash(req, "passwordChange", pending, signIn.factorStepSeconds);
    return { stage: "password", csrfToken: await sessions.csrfToken(req, res) };
  }

  router.post("/interaction/:id/consent", json, requireCsrf, async (req: Request<{ id: string }>, res: Response) => {
    const answer = parseBody(consentBody, req.body);
    const now = new Date();
    const interaction = await openInteraction(db.interactions, req.params.id, sessions.browser(req), now);
    if (config.delegation && interaction.identityProviderId === null) throw new InvalidRequest("the bank's own application asks for this consent, not this page", 409);
    res.json(await stepAnswer(req, await completeConsent(inRequest(ctx, req), interaction, answer, now)));
  });

  // "Not you? Sign out" on the consent page: the signed-in user leaves, the request goes back to the sign-in step for another.
  router.post("/interaction/:id/sign-out", json, requireCsrf, async (req: Request<{ id: string }>, res: Response) => {
    const interaction = await openInteraction(db.interactions, req.params.id, sessions.browser(req), new Date());
    if (interaction.stage !== "consent" || !(await db.interactions.restartLogin(interaction.id, "consent"))) {
      throw new InvalidRequest("this sign-in request is not at the consent step", 409);
    }
    res.json({ stage: "login", csrfToken: await sessions.signOutTo(req, res, interaction.id) });
  });

  router.post("/session/webauthn/authentication-options", json, requireCsrf, webAuthnChallengeRoute(sessions, signIn.rp));

  // The console's own sign-in (no OAuth request behind it): same page, session and throttle.
  router.get("/session", async (req: Request, res: Response) => {
    const user = req.session.userId ? await db.users.byId(req.session.userId) : undefined;
    const pending = sessions.peek(req, "pendingSignIn");
    res.json({
      user: user && user.status === "active" ? { username: user.username, role: user.role } : null,
      csrfToken: await sessions.csrfToken(req, res),
      factorPending: pending !== undefined && pending.interactionId === null,
      idleSeconds: sessions.idleSeconds(req),
      ...(res.locals.endedIdle === true ? { endedIdle: true } : {}),
      passwordChangePending: sessions.peek(req, "passwordChange")?.interactionId === null,
    });
  });

  router.post("/session/login", json, requireCsrf, async (req: Request, res: Response) => {
    const { username, password } = parseBody(loginBody, req.body);
    const outcome = await checkPassword(inRequest(signIn, req), username, password, ip(req), false, new Date());
    if ("pending" in outcome) {
      const csrfToken = await sessions.beginSignIn(req, res, { ...outcome.pending, interactionId: null }, signIn.factorStepSeconds);
      res.json({ user: null, stage: "factor", csrfToken });
      return;
    }
    if (mustChangePassword(outcome.user)) {
      res.json({ user: null, ...(await askNewPassword(req, res, pendingPasswordChange(outcome.authentication, null, "login"))) });
      return;
    }
    const csrfToken = await sessions.signIn(req, res, outcome.authentication, outcome.user.role);
    res.json({ user: { username: outcome.user.username, role: outcome.user.role }, csrfToken });
  });

  router.post("/session/factor", factorJson, requireCsrf, async (req: Request, res: Response) => {
    const proof = factorProof(req.body);
    const now = new Date();
    const pending = await sessions.take(req, "pendingSignIn");
    if (pending === undefined || pending.interactionId !== null) throw new InvalidRequest("no sign-in is waiting for a second factor: enter your username and password again", 409);
    const challenge = await takeChallenge(sessions, db.replays, req, proof, now);
    const authentication = await checkSecondFactor(inRequest(signIn, req), pending, proof, challenge, ip(req), now);
    const user = await db.users.byId(authentication.userId);
    if (!user) throw new InvalidCredentials();
    if (mustChangePassword(user)) {
      res.json({ user: null, ...(await askNewPassword(req, res, pendingPasswordChange(authentication, null, "factor"))) });
      return;
    }
    const csrfToken = await sessions.signIn(req, res, authentication, user.role);
    res.json({ user: { username: user.username, role: user.role }, csrfToken });
  });

  router.post("/session/password", json, requireCsrf, async (req: Request, res: Response) => {
    const { password } = parseBody(newPasswordBody, req.body);
    const pending = sessions.peek(req, "passwordChange");
    if (pending === undefined || pending.interactionId !== null) throw new InvalidRequest("no sign-in is waiting for a new password: enter your username and password again", 409);
    const { user, authentication } = await chooseNewPassword(db, pending, password, new Date(), contextOf(req));
    await sessions.take(req, "passwordChange");
    const csrfToken = await sessions.signIn(req, res, authentication, user.role);
    res.json({ user: { username: user.username, role: user.role }, csrfToken });
  });

  // RP-Initiated Logout 1.0 (oidc/logout.ts): at once when the hint names the signed-in user, else the PSU is asked on /logout.
  const logoutForm = express.urlencoded({ extended: false, limit: "8kb" });
  router.all(END_SESSION_PATH, logoutForm, async (req: Request, res: Response) => {
    if (req.method !== "GET" && req.method !== "POST") throw new MethodNotAllowed(["GET", "POST"]);
    const params = logoutParameters(req.method === "GET" ? req.query : req.body);
    const request = await readLogoutRequest(db.clients, openId.hints, params);
    if (endsAtOnce(request, sessions.authentication(req)?.userId, openId.subjects)) {
      await sessions.signOut(req, res);
      res.redirect(302, afterLogout(request));
      return;
    }
    res.redirect(302, `${LOGOUT_PAGE}?${new URLSearchParams({ ...params })}`);
  });
  // The /logout page's "Sign out": the same request, checked again, confirmed by the PSU.
  router.post("/session/end", json, requireCsrf, async (req: Request, res: Response) => {
    const request = await readLogoutRequest(db.clients, openId.hints, logoutParameters(req.body));
    await sessions.signOut(req, res);
    res.json({ redirectTo: afterLogout(request) });
  });

  router.post("/session/logout", json, requireCsrf, async (req: Request, res: Response) => {
    await sessions.signOut(req, res);
    res.json({ user: null });
  });

  router.use("/session/factors", accountFactorsRouter(db, sessions, signIn, config.sca.idleSeconds));

  return router;
}
