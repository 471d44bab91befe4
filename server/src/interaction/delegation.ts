/**
 * Login and consent delegated to the bank's own application (DELEGATED_LOGIN_URL,
 * DELEGATED_CONSENT_URL), in the manner of ORY Hydra's login and consent flow: the
 * interaction sends the PSU to the bank's login page with a `login_challenge`, the bank's
 * application reads the request and accepts it (who signed in, and how) or rejects it through
 * this REST API; then the same with a `consent_challenge` for the consent. All state stays in
 * Tollgate: a challenge is 32 random bytes, kept as its SHA-256, bound to its interaction and
 * stage, and dies with the interaction; it is answered once, since an answer moves the
 * interaction to its next stage by one conditional update (flow.ts). The PSD2 rules hold on what the bank's
 * application sends back: a request needing SCA is accepted only with `acr` SCA (RTS Art. 4),
 * scopes are only narrowed, and the payment or access asked for is approved as it is (only the
 * accounts are chosen: dynamic linking, RTS Art. 5).
 *
 * The API takes a bearer token of a client holding the `admin` scope (client credentials),
 * like the admin API, or such a token bound to the client's certificate, presented over mutual
 * TLS (RFC 8705 §3); a DPoP-bound token is refused, its proof not being taken here.
 */
import { randomBytes } from "node:crypto";
import express, { Router, type NextFunction, type Request, type Response } from "express";
import { z } from "zod";
import type { Config } from "../config.js";
import { ACR_SCA } from "../kernel/acr.js";
import { BearerError, InvalidRequest, OAuthError } from "../kernel/errors.js";
import { hashSecret } from "../kernel/secrets.js";
import { splitList } from "../kernel/list.js";
import { isCleanText } from "../kernel/text.js";
import type { AuthorizationRedirect } from "../oauth/authorization-response.js";
import { bearerToken } from "../oauth/bearer.js";
import { presentedCertificate } from "../certificates/presented.js";
import { ADMIN_SCOPE } from "../oauth/scopes.js";
import { findPresentedToken } from "../oauth/tokens.js";
import type { Stores } from "../stores/index.js";
import type { InteractionRecord, InteractionStage } from "../stores/interactions.js";
import type { AuthorizationDetail } from "../consents/authorization-details.js";
import { completeAuthentication, completeConsent, endSignIn, type FlowContext } from "./flow.js";
import { inRequest } from "./in-request.js";

/** Where the REST API of the bank's application is served. */
export const DELEGATION_PATH = "/delegation/v1";

/** The `amr` values (RFC 8176 §2) the bank's application may report. */
const AMR = /^[a-z]{2,16}$/;

/** Why a login that needs SCA cannot be accepted without it. */
const SCA_NEEDED = `this login request needs strong customer authentication (PSD2 RTS Art. 4): accept it with acr ${ACR_SCA} once the PSU did it, or reject it`;

const text = (max: number) => z.string().min(1).max(max).refine(isCleanText, "must be well-formed text without NUL");

const loginAccept = z
  .object({
    /** The PSU's username at Tollgate: the bank's customer identifier; a user is made for one not seen before. */
    subject: text(255),
    acr: text(255).optional(),
    amr: z.array(text(32)).max(8).optional(),
    /** Seconds since the epoch. */
    auth_time: z.number().int().positive().optional(),
  })
  .strict();

const consentAccept = z
  .object({
    grant_scope: z.array(text(200)).max(100),
    accounts: z.array(text(34)).max(20).optional(),
    debtor_account: text(34).optional(),
  })
  .strict();

/** The errors the bank's application may end a request with (RFC 6749 §4.1.2.1; OpenID Connect Core §3.1.2.6). */
const rejection = z
  .object({
    error: z.enum(["access_denied", "login_required", "interaction_required", "temporarily_unavailable"]).default("access_denied"),
    error_description: text(200).optional(),
  })
  .strict();

/** A body checked against `schema`. @throws InvalidRequest naming the first problem. */
function parsed<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const where = issue.path.join(".");
  // The details asked for are the TPP's: the bank approves them as they are, choosing accounts only.
  const unknown = issue.code === "unrecognized_keys" ? ` (${issue.keys.join(", ")}): the request is approved as asked, only grant_scope and the accounts are chosen` : "";
  throw new InvalidRequest(`${where ? `${where}: ` : ""}${issue.message}${unknown}`.slice(0, 300));
}

/** The URL of the bank's page for a challenge: `page` with `name=challenge`. */
function pageUrl(page: string, name: string, challenge: string): string {
  const url = new URL(page);
  url.searchParams.set(name, challenge);
  return url.href;
}

/** The answer for the bank's application: where to send the browser, or, for `form_post.jwt`, what to post there (JARM §2.3.3). */
function answerOf(redirect: AuthorizationRedirect | string): Record<string, unknown> {
  if (typeof redirect === "string") return { redirect_to: redirect };
  return redirect.formPost ? { form_post: redirect.formPost } : { redirect_to: redirect.redirectTo };
}

/**
 * Opens a login challenge for `interaction` (at the login stage).
 * @returns the URL of the bank's login page to send the browser to; undefined when the interaction moved on.
 */
export async function delegateLogin(ctx: FlowContext, loginUrl: string, interaction: InteractionRecord): Promise<string | undefined> {
  return openChallenge(ctx, interaction, "login", loginUrl, "login_challenge");
}

async function openChallenge(ctx: FlowContext, interaction: InteractionRecord, stage: InteractionStage, page: string, name: string): Promise<string | undefined> {
  const challenge = randomBytes(32).toString("base64url");
  return (await ctx.db.interactions.openChallenge(interaction.id, stage, hashSecret(challenge))) ? pageUrl(page, name, challenge) : undefined;
}

/**
 * The REST API of the bank's login and consent application.
 * @param ctx - the flow (flow.ts) the answers move on.
 * @param tokens - where the bearer tokens of the bank's application are checked.
 */
export function delegationRouter(config: Config, ctx: FlowContext, tokens: Pick<Stores, "tokens" | "clients">, delegation: NonNullable<Config["delegation"]>): Router {
  const router = Router();
  const json = express.json({ limit: "8kb" });

  // A live bearer token of a client holding the admin scope (RFC 6750 §3.1 errors).
  router.use(async (req: Request, res: Response, next: NextFunction) => {
    const presented = await findPresentedToken(tokens, bearerToken(req.headers.authorization, config.realm), new Date());
    // A certificate-bound token (mutual TLS, RFC 8705 §3) needs its certificate; a DPoP proof (RFC 9449 §7) is not taken here.
    const unbound = presented?.x5t === null || presentedCertificate(req)?.certificate.x5tS256 === presented?.x5t;
    if (!presented?.active || presented.jkt !== null || !unbound) throw new BearerError(config.realm, 401, "invalid_token", "invalid, expired or revoked token, a DPoP-bound one, or a certificate-bound one without its certificate");
    if (!presented.scopes.includes(ADMIN_SCOPE)) throw new BearerError(config.realm, 403, "insufficient_scope", `this API needs the ${ADMIN_SCOPE} scope`);
    res.set("Cache-Control", "no-store");
    next();
  });

  /**
   * The interaction of an open challenge at `stage`.
   * @throws OAuthError 404 for a challenge unknown, answered, expired or of the other stage (one answer for all).
   */
  async function challenged(req: Request<{ challenge: string }>, stage: InteractionStage): Promise<InteractionRecord> {
    const interaction = await ctx.db.interactions.byChallenge(hashSecret(req.params.challenge));
    if (!interaction || interaction.stage !== stage || interaction.expiresAt <= new Date()) throw new OAuthError("not_found", `no open ${stage} request with this challenge`, 404);
    return interaction;
  }

  /** What the bank's application shows and decides on: the TPP, what it asks for, and the rules that hold. */
  async function describe(interaction: InteractionRecord, challenge: string) {
    const client = await ctx.db.clients.appSummary(interaction.appId);
    const consent = interaction.consentId === null ? undefined : await ctx.db.psd2Consents.find(interaction.consentId);
    return {
      challenge,
      client: { client_id: interaction.clientId, name: client?.name ?? "", organization: client?.organizationName ?? "" },
      requested_scope: interaction.scopes,
      authorization_details: consent ? (JSON.parse(consent.requestedDetails) as AuthorizationDetail[]) : null,
      sca_required: interaction.scaRequired,
      login_hint: interaction.loginHint,
      ui_locales: splitList(interaction.uiLocales ?? ""),
      expires_at: interaction.expiresAt.toISOString(),
    };
  }

  router.get("/login-requests/:challenge", async (req: Request<{ challenge: string }>, res: Response) => {
    res.json(await describe(await challenged(req, "login"), req.params.challenge));
  });

  router.post("/login-requests/:challenge/accept", json, async (req: Request<{ challenge: string }>, res: Response) => {
    const body = parsed(loginAccept, req.body);
    const sca = body.acr === ACR_SCA;
    const interaction = await challenged(req, "login");
    if (interaction.scaRequired && !sca) throw new InvalidRequest(SCA_NEEDED);
    const now = new Date();
    const flow = inRequest(ctx, req);
    const user = (await ctx.db.users.byUsername(body.subject)) ?? (await ctx.db.users.create({ username: body.subject, passwordHash: "", role: "user" }));
    if (user.status !== "active") {
      res.json(answerOf(await endSignIn(flow, interaction, "access_denied", "the user's account is disabled", now)));
      return;
    }
    const amr = [...new Set((body.amr ?? []).filter((m) => AMR.test(m) && m !== "mfa")), ...(sca ? ["mfa"] : [])];
    const authentication = { userId: user.id, amr, authTime: body.auth_time === undefined ? now : new Date(body.auth_time * 1000) };
    await ctx.db.audit.record({ type: "signin.succeeded", actor: `user:${user.id}`, subject: interaction.appId, details: { delegated: true, acr: body.acr ?? null, amr }, request: flow.request });
    const result = await completeAuthentication(flow, interaction, "login", user, authentication, now);
    if (!("stage" in result)) {
      res.json(answerOf(result));
      return;
    }
    const next = await openChallenge(ctx, interaction, "consent", delegation.consentUrl, "consent_challenge");
    if (next === undefined) throw new OAuthError("not_found", "no open login request with this challenge", 404);
    res.json(answerOf(next));
  });

  router.post("/login-requests/:challenge/reject", json, async (req: Request<{ challenge: string }>, res: Response) => {
    const body = parsed(rejection, req.body);
    const interaction = await challenged(req, "login");
    res.json(answerOf(await endSignIn(inRequest(ctx, req), interaction, body.error, body.error_description ?? "the bank's sign-in was not completed", new Date())));
  });

  router.get("/consent-requests/:challenge", async (req: Request<{ challenge: string }>, res: Response) => {
    const interaction = await challenged(req, "consent");
    const user = interaction.userId === null ? undefined : await ctx.db.users.byId(interaction.userId);
    const accounts = user && interaction.consentId !== null ? await ctx.accounts.accountsOf({ userId: user.id, username: user.username, customerNumber: await ctx.db.identityProviders.customerNumberOf(user.id) }) : [];
    res.json({
      ...(await describe(interaction, req.params.challenge)),
      subject: user?.username ?? null,
      amr: interaction.authentication?.amr ?? [],
      auth_time: interaction.authentication ? Math.floor(interaction.authentication.authTime.getTime() / 1000) : null,
      accounts,
    });
  });

  router.post("/consent-requests/:challenge/accept", json, async (req: Request<{ challenge: string }>, res: Response) => {
    const body = parsed(consentAccept, req.body);
    const interaction = await challenged(req, "consent");
    const answer = { approve: true as const, scopes: body.grant_scope, accounts: body.accounts, debtorAccount: body.debtor_account };
    res.json(answerOf(await completeConsent(inRequest(ctx, req), interaction, answer, new Date())));
  });

  // The PSU denied: access_denied (RFC 6749 §4.1.2.1), and a PSD2 consent is rejected.
  router.post("/consent-requests/:challenge/reject", async (req: Request<{ challenge: string }>, res: Response) => {
    const interaction = await challenged(req, "consent");
    res.json(answerOf(await completeConsent(inRequest(ctx, req), interaction, { approve: false }, new Date())));
  });

  return router;
}
