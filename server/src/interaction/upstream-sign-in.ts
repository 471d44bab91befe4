/**
 * The sign-in step of an interaction whose PSU signs in at the bank's identity provider
 * (federation/upstream.ts): sending the PSU there, and taking their answer back into the flow
 * (flow.ts) as a sign-in of the Tollgate user linked to their identity there. A failure ends
 * the request for the TPP: `temporarily_unavailable` when the provider cannot be reached,
 * `access_denied` when it refused or its answer does not verify, or when the request needs
 * strong customer authentication (PSD2 RTS Art. 4) and the provider's `acr` is not one of
 * its SCA values.
 */
import type { AuthorizationRedirect } from "../oauth/authorization-response.js";
import { UpstreamRefused, UpstreamUnavailable, type Federation, type UpstreamIdentity } from "../federation/upstream.js";
import type { InteractionRecord } from "../stores/interactions.js";
import type { UserRecord } from "../stores/users.js";
import { endSignIn, type FlowContext } from "./flow.js";
import type { SessionAuthentication } from "./session.js";

/** Why a request needing SCA is refused after a sign-in at the identity provider without it. */
const NOT_SCA = "strong customer authentication is required: the bank's sign-in was not strong customer authentication";

/** The longest username made for a PSU first signed in upstream: `<provider>:<sub>`. */
const MAX_USERNAME = 320;

/**
 * Where to send the PSU to sign in at the interaction's identity provider, or, when it cannot
 * be reached, back to the TPP with `temporarily_unavailable`.
 * @param maxAge - the TPP's `max_age`, seconds; null when none.
 * @returns the provider's URL, or the redirect that ends the request; undefined when the
 *   interaction is no longer at the login stage.
 */
export async function sendUpstream(ctx: FlowContext, federation: Federation, interaction: InteractionRecord, maxAge: number | null, now: Date): Promise<string | AuthorizationRedirect | undefined> {
  try {
    return await federation.begin(interaction, { maxAge });
  } catch (err) {
    if (!(err instanceof UpstreamUnavailable)) throw err;
    await auditFailure(ctx, interaction, "unavailable", err.message);
    return endSignIn(ctx, interaction, "temporarily_unavailable", "the bank's sign-in is unavailable: try again later", now);
  }
}

/**
 * Takes the identity provider's answer for `interaction` (already found by its state and
 * checked to be this browser's): the signed-in user and how they authenticated, or the
 * redirect that ends the request.
 */
export async function answerFromUpstream(
  ctx: FlowContext,
  federation: Federation,
  interaction: InteractionRecord,
  callback: URL,
  now: Date,
): Promise<{ user: UserRecord; authentication: SessionAuthentication } | AuthorizationRedirect> {
  let identity: UpstreamIdentity;
  try {
    identity = await federation.complete(interaction, callback);
  } catch (err) {
    if (err instanceof UpstreamUnavailable) {
      await auditFailure(ctx, interaction, "unavailable", err.message);
      return endSignIn(ctx, interaction, "temporarily_unavailable", "the bank's sign-in is unavailable: try again later", now);
    }
    if (!(err instanceof UpstreamRefused)) throw err;
    await auditFailure(ctx, interaction, "refused", err.reason);
    return endSignIn(ctx, interaction, err.error, err.message, now);
  }
  const { identityProvider: idp } = identity;
  const userId = await ctx.db.identityProviders.userOf(
    { identityProviderId: idp.id, subject: identity.subject, customerNumber: identity.customerNumber },
    `${idp.name}:${identity.subject}`.slice(0, MAX_USERNAME),
    now,
  );
  const user = await ctx.db.users.byId(userId);
  if (user?.status !== "active") {
    await auditFailure(ctx, interaction, "disabled", "the user is disabled", userId);
    return endSignIn(ctx, interaction, "access_denied", "the user's account is disabled", now);
  }
  if (interaction.scaRequired && !identity.sca) {
    await auditFailure(ctx, interaction, "not_sca", `acr ${identity.acr ?? "(none)"}`, userId);
    return endSignIn(ctx, interaction, "access_denied", NOT_SCA, now);
  }
  const details = { identity_provider: idp.name, acr: identity.acr, amr: identity.amr };
  await ctx.db.audit.record({ type: "signin.succeeded", actor: `user:${user.id}`, subject: interaction.appId, details, request: ctx.request });
  return { user, authentication: { userId: user.id, amr: identity.amr, authTime: identity.authTime } };
}

/** Records a failed sign-in at the identity provider (`signin.failed`, with the provider and why). */
async function auditFailure(ctx: FlowContext, interaction: InteractionRecord, outcome: string, reason: string, userId?: string): Promise<void> {
  const idp = interaction.identityProviderId === null ? undefined : await ctx.db.identityProviders.find(interaction.identityProviderId);
  await ctx.db.audit.record({
    type: "signin.failed",
    actor: userId ? `user:${userId}` : "",
    subject: interaction.appId,
    details: { identity_provider: idp?.name ?? null, outcome, reason: reason.slice(0, 200) },
    request: ctx.request,
  });
}
