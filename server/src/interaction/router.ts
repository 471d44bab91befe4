/**
 * HTTP glue of the authorization code flow: `GET /authorize` (RFC 6749 §4.1.1), the JSON
 * interaction API the SPA's sign-in and consent pages call, and the console's plain
 * session sign-in (`/session`). Handlers only read the request, call flow.ts and write the answer.
 */
import express, { Router, type Request, type Response } from "express";
import { z } from "zod";
import type { Config } from "../config.js";
import { InvalidRequest, MethodNotAllowed } from "../kernel/errors.js";
import { consumeRateLimit, type LimiterFactory } from "../kernel/limiter.js";
import { SIGN_IN_PASSWORD_MAX_LENGTH, SIGN_IN_USERNAME_MAX_LENGTH } from "../kernel/limits.js";
import { isCleanText } from "../kernel/text.js";
import { validateAuthorizationRequest } from "../oauth/authorize.js";
import { authenticateUser, completeConsent, completeLogin, openInteraction, startFlow, viewInteraction, type FlowContext, type FlowStores } from "./flow.js";
import type { BrowserSessions } from "./session.js";
import { SignInThrottle } from "./throttle.js";

const cleanText = (max: number) => z.string().min(1).max(max).refine(isCleanText, "must be well-formed text without NUL");
const loginBody = z.object({ username: cleanText(SIGN_IN_USERNAME_MAX_LENGTH), password: cleanText(SIGN_IN_PASSWORD_MAX_LENGTH) });
const consentBody = z.discriminatedUnion("approve", [
  z.object({ approve: z.literal(true), scopes: z.array(cleanText(200)).max(100) }),
  z.object({ approve: z.literal(false) }),
]);

/** Parses a JSON body with a zod schema. @throws InvalidRequest naming the first problem. */
function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InvalidRequest(`invalid body: ${issue.path.join(".") || "body"}: ${issue.message}`);
  }
  return parsed.data;
}

/**
 * Builds the router for /authorize, /interaction/* and /session.
 * @param sessions - the browser sessions (their middleware is shared with the admin API).
 * @param limiters - makes the sign-in throttle's and the authorization requests' counters.
 */
export function interactionRouter(config: Config, db: FlowStores, sessions: BrowserSessions, limiters: LimiterFactory): Router {
  const ctx: FlowContext = {
    db,
    issuer: config.authUrl,
    interactionTtlSeconds: config.interactionTtlSeconds,
    throttle: new SignInThrottle(limiters, config.signIn.maxFailuresPerUser, config.signIn.maxFailuresPerIp, config.signIn.windowSeconds),
  };
  const router = Router();
  const limitAuthorize = config.authorizeRateLimitPerIp > 0 ? limiters("authorize-ip", config.authorizeRateLimitPerIp, 60) : undefined;
  const { requireCsrf } = sessions;
  router.use(["/authorize", "/interaction", "/session"], sessions.middleware, (_req, res, next) => {
    res.set("Cache-Control", "no-store");
    next();
  });
  const json = express.json({ limit: "4kb" });

  router.get("/authorize", async (req: Request, res: Response) => {
    const query = req.originalUrl.includes("?") ? req.originalUrl.slice(req.originalUrl.indexOf("?") + 1) : "";
    const request = await validateAuthorizationRequest(db, query, ctx.issuer, new Date());
    // A valid request writes (an interaction or a code): bounded per client IP.
    if (limitAuthorize) await consumeRateLimit(limitAuthorize, req.ip ?? "unknown");
    const started = await startFlow(ctx, request, req.session.userId, new Date());
    if ("redirectTo" in started) {
      res.redirect(302, started.redirectTo);
      return;
    }
    const { interaction } = started;
    await sessions.addInteraction(req, res, interaction.id);
    res.redirect(302, `/${interaction.stage}?interaction=${encodeURIComponent(interaction.id)}`);
  });

  router.all("/authorize", () => {
    throw new MethodNotAllowed(["GET"]);
  });

  router.get("/interaction/:id", async (req: Request<{ id: string }>, res: Response) => {
    const interaction = await openInteraction(db.interactions, req.params.id, sessions.browser(req), new Date());
    const user = interaction.userId ? await db.users.byId(interaction.userId) : undefined;
    const view = await viewInteraction(db, interaction, user?.username ?? null);
    res.json({ ...view, csrfToken: await sessions.csrfToken(req, res) });
  });

  router.post("/interaction/:id/login", json, requireCsrf, async (req: Request<{ id: string }>, res: Response) => {
    const { username, password } = parseBody(loginBody, req.body);
    const now = new Date();
    const interaction = await openInteraction(db.interactions, req.params.id, sessions.browser(req), now);
    if (interaction.stage !== "login") throw new InvalidRequest("this sign-in request is not at the login step", 409);
    const user = await authenticateUser(ctx, username, password, req.ip ?? "unknown");
    const csrfToken = await sessions.signIn(req, res, user.id);
    const result = await completeLogin(ctx, interaction, user, now);
    res.json("stage" in result ? { ...result, csrfToken } : result);
  });

  router.post("/interaction/:id/consent", json, requireCsrf, async (req: Request<{ id: string }>, res: Response) => {
    const answer = parseBody(consentBody, req.body);
    const now = new Date();
    const interaction = await openInteraction(db.interactions, req.params.id, sessions.browser(req), now);
    res.json(await completeConsent(ctx, interaction, answer, now));
  });

  // The console's own sign-in (no OAuth request behind it): same page, session and throttle.
  router.get("/session", async (req: Request, res: Response) => {
    const user = req.session.userId ? await db.users.byId(req.session.userId) : undefined;
    res.json({ user: user && user.status === "active" ? { username: user.username, role: user.role } : null, csrfToken: await sessions.csrfToken(req, res) });
  });

  router.post("/session/login", json, requireCsrf, async (req: Request, res: Response) => {
    const { username, password } = parseBody(loginBody, req.body);
    const user = await authenticateUser(ctx, username, password, req.ip ?? "unknown");
    const csrfToken = await sessions.signIn(req, res, user.id);
    res.json({ user: { username: user.username, role: user.role }, csrfToken });
  });

  router.post("/session/logout", json, requireCsrf, async (req: Request, res: Response) => {
    await sessions.signOut(req, res);
    res.json({ user: null });
  });

  return router;
}
