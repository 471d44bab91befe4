/**
 * The login/consent flow between `GET /authorize` and the redirect back to the client, in
 * the style of ory/hydra's flow: the server owns the state (login -> consent -> done), each
 * stage is answered once, the flow expires, and only the browser that started it may
 * answer it. The SPA only shows the state and posts the user's answers.
 */
import type { RequestIds } from "../kernel/request-context.js";
import type { Stores } from "../stores/index.js";
import type { InteractionRecord } from "../stores/interactions.js";
import type { Psd2ConsentRecord } from "../stores/psd2-consents.js";
import { DELEGATED_LOGIN, type Authentication } from "../stores/tokens.js";
import type { UserRecord } from "../stores/users.js";
import { claimPushedRequest, errorRedirect, issueAuthorizationCode, type AuthorizationRequest } from "../oauth/authorize.js";
import type { AuthorizationRedirect, AuthorizationResponder } from "../oauth/authorization-response.js";
import { ACR_SCA } from "../kernel/acr.js";
import { OAuthError } from "../kernel/errors.js";
import { ADMIN_SCOPE } from "../oauth/scopes.js";
import type { SessionAuthentication } from "./session.js";
import { acrOf } from "./sign-in.js";
import { describeWait } from "./throttle.js";
import type { AccountDirectory, PsuAccount } from "../consents/accounts.js";
import { approve, type PsuChoice } from "../consents/approval.js";
import type { AuthorizationDetail } from "../consents/authorization-details.js";
import { accessEndOf, kindOf, type ConsentRequest } from "../consents/requests.js";
import { paymentConsentEnd } from "../consents/lifecycle.js";
import type { Subjects } from "../oauth/subject.js";
import { joinList, splitList } from "../kernel/list.js";

/** Why a request that needs SCA is refused to a user without a second factor (sent back as `access_denied`). */
const NO_SECOND_FACTOR = "strong customer authentication is required: the user has no second factor (an authenticator app or a passkey) set up";

/** Why a sign-in started from a pushed request gets no code (sent back as `invalid_request`): another one got it. */
const PUSHED_REQUEST_ANSWERED = "a code was already issued for this request_uri (RFC 9126 section 4): push the authorization request again";

/** Interaction ids are cuids; anything else is unknown without a lookup. */
const INTERACTION_ID = /^[a-z0-9]{1,64}$/;

/** The stores of the flow. */
export type FlowStores = Pick<Stores, "users" | "clients" | "interactions" | "consents" | "psd2Consents" | "codes" | "audit" | "pushedRequests" | "factors" | "replays" | "catalog" | "evidence" | "identityProviders">;

/** Flow settings. */
export interface FlowContext {
  /** The stores the flow reads and writes. */
  db: FlowStores;
  /** Answers the client: `iss` on redirects (RFC 9207), and the keys of signed responses (JARM). */
  responder: AuthorizationResponder;
  /** Interaction lifetime, seconds. */
  interactionTtlSeconds: number;
  /** Inactivity allowed after authenticating before consent needs a new authentication, seconds (RTS Art. 4(3)(d)). */
  idleSeconds: number;
  /** The PSUs' payment accounts, for the consent page of a PSD2 consent. */
  accounts: AccountDirectory;
  /** How long an approved payment consent's payment may be made, seconds (consents/lifecycle.ts `paymentConsentEnd`). */
  paymentConsentLifetimeSeconds: number;
  /** The subject identifiers apps are told (oauth/subject.ts): an `id_token_hint`'s `sub` is compared with the session user's. */
  subjects: Subjects;
  /** PSUs sign in at the bank's own application (interaction/delegation.ts), unless at an identity provider. */
  loginDelegated: boolean;
  /** The HTTP request being served (its ids go into the audit events); set per request by the router. */
  request?: RequestIds;
}

/** What the SPA shows for an interaction (`GET /interaction/:id`). */
export interface InteractionView {
  id: string;
  stage: "login" | "factor" | "consent";
  /** The request needs two factors (RTS Art. 4). */
  scaRequired: boolean;
  client: { name: string; organization: string };
  scopes: { name: string; description: string }[];
  user: { username: string } | null;
  /** The request's `login_hint` (OpenID Connect Core §3.1.2.1), offered as the username at sign-in; null when none. */
  loginHint: string | null;
  /** The request's `ui_locales` (§3.1.2.1): language tags in order of preference, for the pages' dates and amounts; empty when none. */
  uiLocales: string[];
  /** The bank's identity provider the PSU signs in at (federation/), by name; null: Tollgate's own sign-in. */
  identityProvider: string | null;
  /** The PSD2 consent's authorization details as requested (RFC 9396); null when the request has none. */
  authorizationDetails: AuthorizationDetail[] | null;
  /** The PSU's accounts to choose from, at the consent stage of a PSD2 consent; else empty. */
  accounts: PsuAccount[];
  /**
   * How long the access asked for lasts if the user allows it (ISO 8601): an account consent's
   * end, or the app's refresh token lifetime from now; null for payments (used once).
   */
  accessUntil: string | null;
}

/** The outcome of a step: either the next stage to show, or where to send the browser. */
export type StepResult = { stage: "consent" } | AuthorizationRedirect;

function subset(scopes: readonly string[], of: readonly string[]): boolean {
  return scopes.every((s) => of.includes(s));
}

/** The user if they exist and are active: a disabled user's open session signs in no one. */
async function activeUser(users: Stores["users"], id: string | null | undefined): Promise<UserRecord | undefined> {
  const user = id ? await users.byId(id) : undefined;
  return user?.status === "active" ? user : undefined;
}

/**
 * Why `user` may not grant `scopes` (sent back as `access_denied`), or undefined when they
 * may. The `admin` scope makes a token an admin API credential, so only an administrator
 * may grant it; an ordinary user's consent never can.
 */
function refusal(user: UserRecord, scopes: readonly string[]): string | undefined {
  return scopes.includes(ADMIN_SCOPE) && user.role !== "admin" ? `only an administrator may grant the ${ADMIN_SCOPE} scope` : undefined;
}

/**
 * Starts the flow for a validated authorization request. This browser's sign-in is reused
 * unless the request needs SCA (two factors in this authentication, RTS Art. 4), `prompt`
 * has `login` or `select_account`, it is older than `max_age`, it is another user's than its `id_token_hint`
 * names (OpenID Connect Core §3.1.2.1; with `prompt=none`, `login_required`), or the PSU
 * signs in at the bank's identity provider (federation/); it reaches the consent page only
 * while within the inactivity limit.
 * @param session - how this browser's signed-in user authenticated, if anyone is signed in.
 * @returns a redirect to the client when no page is needed (remembered consent, or
 *   `prompt=none` errors), else the new interaction to show.
 */
export async function startFlow(
  ctx: FlowContext,
  request: AuthorizationRequest,
  session: SessionAuthentication | undefined,
  now: Date,
): Promise<AuthorizationRedirect | { interaction: InteractionRecord }> {
  const grant = {
    appId: request.client.appId,
    redirectUri: request.redirectUri,
    scopes: request.scopes,
    state: request.state,
    codeChallenge: request.codeChallenge,
    codeChallengeMethod: request.codeChallengeMethod,
    dpopJkt: request.dpopJkt,
    nonce: request.nonce,
    resource: request.resource,
    clientId: request.client.clientId,
    responseMode: request.responseMode,
    requestObject: request.requestObject,
  };
  // A sign-in at the bank's identity provider is its own: its single sign-on, not this browser's session, spares the PSU.
  const reused =
    session !== undefined &&
    request.identityProviderId === null &&
    (request.hintedSubject === null || ctx.subjects(request.client, session.userId) === request.hintedSubject) &&
    !request.scaRequired &&
    !request.prompt.includes("login") &&
    !request.prompt.includes("select_account") &&
    (request.maxAge === null || now.getTime() - session.authTime.getTime() <= request.maxAge * 1000)
      ? session
      : undefined;
  const user = reused && (await activeUser(ctx.db.users, reused.userId));
  // Whom an answer given now is for: the signed-in user, and a Berlin Group consent the scope named.
  const target = { ...grant, userId: user ? user.id : null, psd2ConsentId: request.consent?.consentId ?? null };
  const refused = user && refusal(user, request.scopes);
  if (refused) return errorRedirect(ctx.responder, target, "access_denied", refused, now);
  // A PSD2 consent is approved by the PSU each time: nothing remembered stands for it.
  const consented = user && !request.consent ? subset(request.scopes, await ctx.db.consents.scopesOf(user.id, request.client.appId)) : false;
  if (request.prompt.includes("none")) {
    if (request.scaRequired) return errorRedirect(ctx.responder, target, "login_required", "strong customer authentication is required", now);
    if (!user) return errorRedirect(ctx.responder, target, "login_required", "the user is not signed in", now);
    if (!consented) return errorRedirect(ctx.responder, target, "consent_required", "the user has not consented to this request", now);
  }
  if (user && reused && consented && !request.prompt.includes("consent")) {
    if (!(await pushedRequestOpen(ctx, request.requestUriHash, now))) return errorRedirect(ctx.responder, target, "invalid_request", PUSHED_REQUEST_ANSWERED, now);
    return issueAuthorizationCode(ctx.db.codes, { ...target, userId: user.id, authentication: withAcr(reused) }, ctx.responder, now);
  }
  const fresh = user && reused && !idle(ctx, reused.authTime, now) ? { user, reused } : undefined;
  const interaction = await ctx.db.interactions.create({
    ...grant,
    consentId: request.consent ? await consentToAuthorize(ctx, request.client.appId, request.consent) : undefined,
    requestUriHash: request.requestUriHash ?? undefined,
    prompt: request.prompt.length === 0 ? null : joinList(request.prompt),
    loginHint: request.loginHint,
    uiLocales: request.uiLocales,
    identityProviderId: request.identityProviderId,
    scaRequired: request.scaRequired,
    stage: fresh ? "consent" : "login",
    userId: fresh ? fresh.user.id : null,
    authentication: fresh ? { amr: fresh.reused.amr, authTime: fresh.reused.authTime } : null,
    expiresAt: new Date(now.getTime() + ctx.interactionTtlSeconds * 1000),
  });
  return { interaction };
}

/**
 * The id of the PSD2 consent an interaction authorizes: the Berlin Group consent the scope
 * named, or a new `received` consent for the `authorization_details` asked for.
 */
async function consentToAuthorize(ctx: FlowContext, appId: string, consent: ConsentRequest): Promise<string> {
  if (consent.consentId !== null) return consent.consentId;
  const { details } = consent;
  const created = await ctx.db.psd2Consents.create({ appId, kind: kindOf(details), origin: "rar", requestedDetails: JSON.stringify(details), validUntil: accessEndOf(details) });
  return created.id;
}

/**
 * Loads an interaction that this browser may still answer: one it started, and, once a
 * user signed in for it, only while that user's session is this browser's (a copy of the
 * pre-sign-in cookie gets nothing).
 * @param browser - the interaction ids this browser started and its signed-in user, if any.
 * @throws OAuthError 404 (unknown), 403 (started in another browser or signed in elsewhere),
 *   410 (expired or finished).
 */
export async function openInteraction(
  interactions: Stores["interactions"],
  id: string,
  browser: { interactionIds: readonly string[]; userId: string | undefined },
  now: Date,
): Promise<InteractionRecord> {
  const interaction = INTERACTION_ID.test(id) ? await interactions.find(id) : undefined;
  if (!interaction) throw new OAuthError("not_found", "this sign-in request does not exist", 404);
  if (!browser.interactionIds.includes(id) || (interaction.userId !== null && interaction.userId !== browser.userId)) {
    throw new OAuthError("access_denied", "this sign-in request was started in another browser", 403);
  }
  if (interaction.stage === "done" || interaction.expiresAt <= now) {
    throw new OAuthError("expired", "this sign-in request has expired or was already answered; start again from the app", 410);
  }
  return interaction;
}

/**
 * Builds the view of an interaction for the SPA.
 * @param user - the user signed in for it, if any.
 */
export async function viewInteraction(ctx: FlowContext, interaction: InteractionRecord, user: UserRecord | undefined): Promise<InteractionView> {
  const { db } = ctx;
  const app = await db.clients.appSummary(interaction.appId);
  const consent = interaction.consentId === null ? undefined : await db.psd2Consents.find(interaction.consentId);
  const choosing = consent !== undefined && user !== undefined && interaction.stage === "consent";
  return {
    id: interaction.id,
    stage: interaction.stage === "consent" || interaction.stage === "factor" ? interaction.stage : "login",
    scaRequired: interaction.scaRequired,
    client: { name: app?.name ?? "", organization: app?.organizationName ?? "" },
    scopes: await db.consents.describeScopes(interaction.scopes),
    user: user ? { username: user.username } : null,
    loginHint: interaction.loginHint,
    uiLocales: splitList(interaction.uiLocales ?? ""),
    identityProvider: interaction.identityProviderId === null ? null : ((await db.identityProviders.find(interaction.identityProviderId))?.name ?? null),
    authorizationDetails: consent ? (JSON.parse(consent.requestedDetails) as AuthorizationDetail[]) : null,
    accounts: choosing ? await accountsOf(ctx, user) : [],
    accessUntil: accessUntil(consent, app?.refreshTokenLifetimeSeconds ?? 0, new Date()),
  };
}

/** {@link InteractionView.accessUntil} of a request with `consent` (if any) for an app with `refreshLifetimeSeconds`. */
function accessUntil(consent: Psd2ConsentRecord | undefined, refreshLifetimeSeconds: number, now: Date): string | null {
  if (consent?.kind === "payment_initiation") return null;
  return (consent?.validUntil ?? new Date(now.getTime() + refreshLifetimeSeconds * 1000)).toISOString();
}

/**
 * Records how the user authenticated on an interaction at the `login` or `factor` stage and
 * moves it on: back to the client with `access_denied` when the request needs SCA and the
 * user has no second factor, or the user may not grant the scopes; straight back with a code
 * when the user already consented to them (and `prompt` is not `consent`); else to consent.
 * @throws OAuthError 409 when the interaction is no longer at stage `from`.
 */
export async function completeAuthentication(
  ctx: FlowContext,
  interaction: InteractionRecord,
  from: "login" | "factor",
  user: UserRecord,
  authentication: SessionAuthentication,
  now: Date,
): Promise<StepResult> {
  const withoutSca = interaction.scaRequired && acrOf(authentication.amr) !== ACR_SCA;
  const refused = withoutSca ? NO_SECOND_FACTOR : refusal(user, interaction.scopes);
  const consented = interaction.consentId === null && subset(interaction.scopes, await ctx.db.consents.scopesOf(user.id, interaction.appId));
  const done = { amr: authentication.amr, authTime: authentication.authTime };
  if (refused || (consented && !splitList(interaction.prompt ?? "").includes("consent"))) {
    if (!(await ctx.db.interactions.authenticate(interaction.id, from, "done", user.id, done))) throw notAt(from);
    const grant = codeGrant(interaction);
    if (!refused && !(await pushedRequestOpen(ctx, interaction.requestUriHash, now))) return errorRedirect(ctx.responder, grant, "invalid_request", PUSHED_REQUEST_ANSWERED, now);
    return refused
      ? errorRedirect(ctx.responder, grant, "access_denied", refused, now)
      : issueAuthorizationCode(ctx.db.codes, { ...grant, userId: user.id, authentication: withAcr(authentication, await authenticatedBy(ctx, interaction)) }, ctx.responder, now);
  }
  if (!(await ctx.db.interactions.authenticate(interaction.id, from, "consent", user.id, done))) throw notAt(from);
  return { stage: "consent" };
}

/**
 * Moves a `login`-stage interaction to the `factor` stage (the password was answered).
 * @throws OAuthError 409 when it is no longer at the login stage.
 */
export async function enterFactorStage(ctx: FlowContext, interaction: InteractionRecord): Promise<void> {
  if (!(await ctx.db.interactions.advance(interaction.id, "login", "factor"))) throw notAt("login");
}

/**
 * Answers the consent stage. Approval remembers the consent and issues the code for the
 * chosen scopes (a non-empty subset of those requested); denial sends `access_denied`, and
 * so does an approval by a user who was disabled since signing in or may not grant a scope.
 * An approval more than the inactivity limit after the authentication sends the interaction
 * back to the login stage (RTS Art. 4(3)(d)).
 * @returns where to send the browser: the client's redirect URI, or the page that posts the answer to it (form_post.jwt).
 * @throws OAuthError 409 when not at the consent stage; 400 for scopes outside the request;
 *   401 `login_required` when the user was inactive for too long.
 */
export async function completeConsent(
  ctx: FlowContext,
  interaction: InteractionRecord,
  answer: ({ approve: true; scopes: string[] } & PsuChoice) | { approve: false },
  now: Date,
): Promise<AuthorizationRedirect> {
  if (interaction.stage !== "consent" || interaction.userId === null || interaction.authentication === null) throw notAt("consent");
  if (answer.approve && idle(ctx, interaction.authentication.authTime, now)) {
    await ctx.db.interactions.restartLogin(interaction.id, "consent");
    throw new OAuthError("login_required", `You were inactive for more than ${describeWait(ctx.idleSeconds)} after signing in. Sign in again.`, 401);
  }
  const grant = codeGrant(interaction);
  // The approved scopes in request order, each once.
  const scopes = answer.approve ? interaction.scopes.filter((s) => answer.scopes.includes(s)) : [];
  const { consentId } = interaction;
  if (answer.approve) {
    // With a PSD2 consent the scopes may all be left out: the authorization details are what is approved.
    if ((scopes.length === 0 && consentId === null) || !subset(answer.scopes, interaction.scopes)) {
      throw new OAuthError("invalid_request", "choose at least one of the requested scopes", 400);
    }
    const app = await ctx.db.clients.appSummary(interaction.appId);
    if (app?.status !== "approved") throw new OAuthError("unauthorized_client", "this app has been revoked", 400);
  }
  const user = await activeUser(ctx.db.users, interaction.userId);
  // Before the interaction moves on: a choice that is not the PSU's to make is answered 400 and can be made again.
  const psd2 = answer.approve && user && consentId !== null ? await psd2Approval(ctx, consentId, user, answer) : undefined;
  if (!(await ctx.db.interactions.advance(interaction.id, "consent", "done"))) throw notAt("consent");
  // Before the consent is answered: a sign-in whose pushed request already got its code changes nothing.
  if (answer.approve && !(await pushedRequestOpen(ctx, interaction.requestUriHash, now))) return errorRedirect(ctx.responder, grant, "invalid_request", PUSHED_REQUEST_ANSWERED, now);
  const deny = async (description: string) => {
    if (consentId !== null && user) await ctx.db.psd2Consents.answer(consentId, { userId: user.id, rejected: true }, now);
    return errorRedirect(ctx.responder, grant, "access_denied", description, now);
  };
  if (!answer.approve) return deny("the user denied the request");
  if (!user) return deny("the user's account is disabled");
  const refused = refusal(user, scopes) ?? (psd2 && "refused" in psd2 ? psd2.refused : undefined);
  if (refused) return deny(refused);
  const approved = psd2 && "approved" in psd2 ? psd2.approved : undefined;
  const consent = approved ? { consentId: consentId!, authorizationDetails: JSON.stringify(approved) } : undefined;
  const validUntil = approved?.some((d) => d.type === "payment_initiation") ? paymentConsentEnd(now, ctx.paymentConsentLifetimeSeconds) : undefined;
  if (consent && !(await ctx.db.psd2Consents.answer(consent.consentId, { userId: user.id, approvedDetails: consent.authorizationDetails, validUntil }, now))) {
    return deny("the consent is no longer awaiting authorization");
  }
  if (scopes.length > 0) await ctx.db.consents.remember(user.id, interaction.appId, scopes);
  await ctx.db.audit.record({
    type: "consent.granted",
    actor: `user:${user.id}`,
    subject: interaction.appId,
    details: { username: user.username, role: user.role, scopes, ...(consent ? { psd2_consent_id: consent.consentId, authorization_details: approved } : {}) },
    request: ctx.request,
  });
  const authentication = withAcr(interaction.authentication, await authenticatedBy(ctx, interaction));
  return issueAuthorizationCode(ctx.db.codes, { ...grant, scopes, userId: user.id, authentication, consent }, ctx.responder, now);
}

/**
 * The PSU's approval of the PSD2 consent `consentId` (consents/approval.ts), or why it is
 * refused: it is no longer awaiting authorization (the TPP deleted it, or it was answered).
 * @throws InvalidRequest (400) for a choice of accounts that is not the PSU's or is missing.
 */
async function psd2Approval(ctx: FlowContext, consentId: string, user: UserRecord, choice: PsuChoice): Promise<ReturnType<typeof approve>> {
  const consent = await ctx.db.psd2Consents.find(consentId);
  if (consent?.status !== "received") return { refused: "the consent is no longer awaiting authorization" };
  const accounts = await accountsOf(ctx, user);
  return approve(JSON.parse(consent.requestedDetails) as AuthorizationDetail[], accounts, choice);
}

/** The PSU's payment accounts, asked of the bank's account directory with the customer number of their latest sign-in at its identity provider. */
async function accountsOf(ctx: FlowContext, user: UserRecord): Promise<PsuAccount[]> {
  return ctx.accounts.accountsOf({ userId: user.id, username: user.username, customerNumber: await ctx.db.identityProviders.customerNumberOf(user.id) });
}

/**
 * Ends an interaction at the login stage with `error` for the client (RFC 6749 §4.1.2.1): a
 * sign-in at the bank's identity provider that failed or was refused (federation/).
 * @throws OAuthError 409 when it is no longer at the login stage.
 */
export async function endSignIn(ctx: FlowContext, interaction: InteractionRecord, error: string, description: string, now: Date): Promise<AuthorizationRedirect> {
  if (!(await ctx.db.interactions.advance(interaction.id, "login", "done"))) throw notAt("login");
  return errorRedirect(ctx.responder, codeGrant(interaction), error, description, now);
}

/** An authentication with its `acr`, as codes and tokens carry it. */
function withAcr(a: { amr: string[]; authTime: Date }, by?: string): Authentication {
  return { acr: acrOf(a.amr), amr: a.amr, authTime: a.authTime, ...(by === undefined ? {} : { authenticatedBy: by }) };
}

/** Where an interaction's user signed in, as codes and tokens record it ({@link Authentication.authenticatedBy}); undefined: Tollgate's own sign-in. */
async function authenticatedBy(ctx: FlowContext, interaction: InteractionRecord): Promise<string | undefined> {
  if (interaction.identityProviderId !== null) return (await ctx.db.identityProviders.find(interaction.identityProviderId))?.name;
  return ctx.loginDelegated ? DELEGATED_LOGIN : undefined;
}

/**
 * Whether a code may be issued for the pushed request `requestUriHash` answers, using it up
 * (oauth/authorize.ts claimPushedRequest): true when the request was not pushed.
 */
async function pushedRequestOpen(ctx: FlowContext, requestUriHash: string | null, now: Date): Promise<boolean> {
  return requestUriHash === null || claimPushedRequest(ctx.db, requestUriHash, ctx.interactionTtlSeconds, now);
}

/** Whether more than the inactivity limit passed since `authTime`. */
function idle(ctx: FlowContext, authTime: Date, now: Date): boolean {
  return now.getTime() - authTime.getTime() > ctx.idleSeconds * 1000;
}

/** What an interaction's answer is bound to and whom it is for ({@link ResponseTarget}). */
function codeGrant(i: InteractionRecord) {
  return {
    appId: i.appId,
    redirectUri: i.redirectUri,
    scopes: i.scopes,
    state: i.state,
    codeChallenge: i.codeChallenge,
    codeChallengeMethod: i.codeChallengeMethod,
    dpopJkt: i.dpopJkt,
    nonce: i.nonce,
    resource: i.resource,
    clientId: i.clientId,
    responseMode: i.responseMode,
    userId: i.userId,
    psd2ConsentId: i.consentId,
    requestObject: i.requestObject,
  };
}

function notAt(stage: string): OAuthError {
  return new OAuthError("invalid_request", `this sign-in request is not at the ${stage} step`, 409);
}
