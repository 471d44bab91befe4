/**
 * The login/consent flow between `GET /authorize` and the redirect back to the client, in
 * the style of ory/hydra's flow: the server owns the state (login -> consent -> done), each
 * stage is answered once, the flow expires, and only the browser that started it may
 * answer it. The SPA only shows the state and posts the user's answers.
 */
import { verify } from "@node-rs/argon2";
import type { Stores } from "../stores/index.js";
import type { InteractionRecord } from "../stores/interactions.js";
import type { UserRecord } from "../stores/users.js";
import { errorRedirect, issueAuthorizationCode, type AuthorizationRequest } from "../oauth/authorize.js";
import { OAuthError } from "../kernel/errors.js";
import { ADMIN_SCOPE } from "../oauth/scopes.js";
import type { SignInThrottle } from "./throttle.js";

/** argon2id hash (library defaults) of a discarded random password, verified against when the username is unknown, so both paths cost the same. */
const DUMMY_HASH = "$argon2id$v=19$m=19456,t=2,p=1$dUvXokNw5DJvOmhxTAaMTA$ucDXzItuIWJrZ7zmU0yr52mYo1j04gsEmrHCkE3LbJM";

/** Interaction ids are cuids; anything else is unknown without a lookup. */
const INTERACTION_ID = /^[a-z0-9]{1,64}$/;

/** The stores of the flow. */
export type FlowStores = Pick<Stores, "users" | "clients" | "interactions" | "consents" | "codes" | "audit" | "pushedRequests">;

/** Flow settings. */
export interface FlowContext {
  /** The stores the flow reads and writes. */
  db: FlowStores;
  /** OAuth issuer, `iss` on redirects (RFC 9207). */
  issuer: string;
  /** Interaction lifetime, seconds. */
  interactionTtlSeconds: number;
  throttle: SignInThrottle;
}

/** What the SPA shows for an interaction (`GET /interaction/:id`). */
export interface InteractionView {
  id: string;
  stage: "login" | "consent";
  client: { name: string; organization: string };
  scopes: { name: string; description: string }[];
  user: { username: string } | null;
}

/** The outcome of a step: either the next stage to show, or where to send the browser. */
export type StepResult = { stage: "consent" } | { redirectTo: string };

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
 * Starts the flow for a validated authorization request.
 * @param sessionUserId - the user already signed in in this browser, if any.
 * @returns a redirect to the client when no page is needed (remembered consent, or
 *   `prompt=none` errors), else the new interaction to show.
 */
export async function startFlow(
  ctx: FlowContext,
  request: AuthorizationRequest,
  sessionUserId: string | undefined,
  now: Date,
): Promise<{ redirectTo: string } | { interaction: InteractionRecord }> {
  const grant = {
    appId: request.client.appId,
    redirectUri: request.redirectUri,
    scopes: request.scopes,
    state: request.state,
    codeChallenge: request.codeChallenge,
    codeChallengeMethod: request.codeChallengeMethod,
    dpopJkt: request.dpopJkt,
  };
  const user = request.prompt === "login" ? undefined : await activeUser(ctx.db.users, sessionUserId);
  const refused = user && refusal(user, request.scopes);
  if (refused) return { redirectTo: errorRedirect(grant, "access_denied", refused, ctx.issuer) };
  const consented = user ? subset(request.scopes, await ctx.db.consents.scopesOf(user.id, request.client.appId)) : false;
  if (request.prompt === "none") {
    if (!user) return { redirectTo: errorRedirect(grant, "login_required", "the user is not signed in", ctx.issuer) };
    if (!consented) return { redirectTo: errorRedirect(grant, "consent_required", "the user has not consented to these scopes", ctx.issuer) };
  }
  if (user && consented && request.prompt !== "consent") {
    return { redirectTo: await issueAuthorizationCode(ctx.db.codes, { ...grant, userId: user.id }, ctx.issuer, now) };
  }
  const interaction = await ctx.db.interactions.create({
    ...grant,
    prompt: request.prompt,
    stage: user ? "consent" : "login",
    userId: user?.id ?? null,
    expiresAt: new Date(now.getTime() + ctx.interactionTtlSeconds * 1000),
  });
  return { interaction };
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

/** Builds the view of an interaction for the SPA. */
export async function viewInteraction(db: Pick<Stores, "clients" | "consents">, interaction: InteractionRecord, username: string | null): Promise<InteractionView> {
  const app = await db.clients.appSummary(interaction.appId);
  return {
    id: interaction.id,
    stage: interaction.stage === "consent" ? "consent" : "login",
    client: { name: app?.name ?? "", organization: app?.organizationName ?? "" },
    scopes: await db.consents.describeScopes(interaction.scopes),
    user: username ? { username } : null,
  };
}

/**
 * Checks a username and password (argon2id). Failures are throttled per user and per IP.
 * @returns the user.
 * @throws TooManyAttempts (429) when throttled; OAuthError 401 `invalid_credentials` for an
 *   unknown user, a wrong password or a disabled account, with one message for all three.
 */
export async function authenticateUser(ctx: FlowContext, username: string, password: string, ip: string): Promise<UserRecord> {
  await ctx.throttle.check(username, ip);
  const user = await ctx.db.users.byUsername(username);
  const valid = await verify(user?.passwordHash ?? DUMMY_HASH, password).catch(() => false);
  if (!user || !valid || user.status !== "active") {
    await ctx.throttle.recordFailure(username, ip);
    await ctx.db.audit.record({ type: "signin.failed", actor: user ? `user:${user.id}` : "", details: { username: username.slice(0, 200), ip } });
    throw new OAuthError("invalid_credentials", "Invalid username or password", 401);
  }
  await ctx.throttle.recordSuccess(username);
  await ctx.db.audit.record({ type: "signin.succeeded", actor: `user:${user.id}`, details: { ip } });
  return user;
}

/**
 * Records the signed-in user on a login-stage interaction and moves it on: back to the
 * client with `access_denied` when the user may not grant the scopes, straight back with a
 * code when the user already consented to them (and `prompt` is not `consent`), else to the
 * consent stage.
 * @throws OAuthError 409 when the interaction is not at the login stage.
 */
export async function completeLogin(ctx: FlowContext, interaction: InteractionRecord, user: UserRecord, now: Date): Promise<StepResult> {
  const refused = refusal(user, interaction.scopes);
  const consented = subset(interaction.scopes, await ctx.db.consents.scopesOf(user.id, interaction.appId));
  if (refused || (consented && interaction.prompt !== "consent")) {
    if (!(await ctx.db.interactions.advance(interaction.id, "login", "done", user.id))) throw notAt("login");
    const grant = codeGrant(interaction);
    return {
      redirectTo: refused
        ? errorRedirect(grant, "access_denied", refused, ctx.issuer)
        : await issueAuthorizationCode(ctx.db.codes, { ...grant, userId: user.id }, ctx.issuer, now),
    };
  }
  if (!(await ctx.db.interactions.advance(interaction.id, "login", "consent", user.id))) throw notAt("login");
  return { stage: "consent" };
}

/**
 * Answers the consent stage. Approval remembers the consent and issues the code for the
 * chosen scopes (a non-empty subset of those requested); denial sends `access_denied`, and
 * so does an approval by a user who was disabled since signing in or may not grant a scope.
 * @returns where to send the browser (the client's redirect URI).
 * @throws OAuthError 409 when not at the consent stage; 400 for scopes outside the request.
 */
export async function completeConsent(
  ctx: FlowContext,
  interaction: InteractionRecord,
  answer: { approve: true; scopes: string[] } | { approve: false },
  now: Date,
): Promise<{ redirectTo: string }> {
  if (interaction.stage !== "consent" || interaction.userId === null) throw notAt("consent");
  const grant = codeGrant(interaction);
  // The approved scopes in request order, each once.
  const scopes = answer.approve ? interaction.scopes.filter((s) => answer.scopes.includes(s)) : [];
  if (answer.approve) {
    if (scopes.length === 0 || !subset(answer.scopes, interaction.scopes)) {
      throw new OAuthError("invalid_request", "choose at least one of the requested scopes", 400);
    }
    const app = await ctx.db.clients.appSummary(interaction.appId);
    if (app?.status !== "approved") throw new OAuthError("unauthorized_client", "this app has been revoked", 400);
  }
  const user = await activeUser(ctx.db.users, interaction.userId);
  if (!(await ctx.db.interactions.advance(interaction.id, "consent", "done"))) throw notAt("consent");
  const deny = (description: string) => ({ redirectTo: errorRedirect(grant, "access_denied", description, ctx.issuer) });
  if (!answer.approve) return deny("the user denied the request");
  if (!user) return deny("the user's account is disabled");
  const refused = refusal(user, scopes);
  if (refused) return deny(refused);
  await ctx.db.consents.remember(user.id, interaction.appId, scopes);
  await ctx.db.audit.record({
    type: "consent.granted",
    actor: `user:${user.id}`,
    subject: interaction.appId,
    details: { username: user.username, role: user.role, scopes },
  });
  return { redirectTo: await issueAuthorizationCode(ctx.db.codes, { ...grant, scopes, userId: user.id }, ctx.issuer, now) };
}

function codeGrant(i: InteractionRecord) {
  return {
    appId: i.appId,
    redirectUri: i.redirectUri,
    scopes: i.scopes,
    state: i.state,
    codeChallenge: i.codeChallenge,
    codeChallengeMethod: i.codeChallengeMethod,
    dpopJkt: i.dpopJkt,
  };
}

function notAt(stage: string): OAuthError {
  return new OAuthError("invalid_request", `this sign-in request is not at the ${stage} step`, 409);
}
