/**
 * What the oidc-provider peers that serve the authorization code flow share
 * (bench/peers/oidc-provider-fapi.ts, bench/peers/oidc-provider-openid.ts): one account, its
 * interactions answered at once, and a refresh token at every code exchange, as ours issues.
 *
 * No dev interactions: the benchmark drives the front channel itself, and every request to
 * `/interaction/<uid>` is answered here at once, without a page: user `bench-user` signs in
 * and grants the requested scopes in a grant of their own (`provider.interactionFinished`),
 * which redirects back to the authorization endpoint and on to the callback with the code.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type Provider from "oidc-provider";

/** The account every interaction signs in. */
const ACCOUNT_ID = "bench-user";

/** The little of oidc-provider's interaction API used here (bench/peers/types.d.ts declares the rest). */
interface InteractionApi {
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<{ params: { client_id: string; scope: string } }>;
  interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options: { mergeWithLastSubmission: boolean }): Promise<void>;
  Grant: new (properties: { accountId: string; clientId: string }) => { addOIDCScope(scope: string): void; save(): Promise<string> };
}

/** The provider configuration of the account and its refresh tokens: spread into the peer's configuration. */
export const USER_FLOW_CONFIGURATION = {
  /** The account's claims: its `sub` alone. */
  findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
  /** Every code exchange issues a refresh token (no `offline_access` scope needed), as ours does, to a client allowed the refresh grant. */
  issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) => client.grantTypeAllowed("refresh_token"),
};

/** Signs in {@link ACCOUNT_ID} and grants the requested scopes: a 303 back to the authorization endpoint. */
async function finishInteraction(interactions: InteractionApi, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { params } = await interactions.interactionDetails(req, res);
  const grant = new interactions.Grant({ accountId: ACCOUNT_ID, clientId: params.client_id });
  grant.addOIDCScope(params.scope);
  const grantId = await grant.save();
  await interactions.interactionFinished(req, res, { login: { accountId: ACCOUNT_ID }, consent: { grantId } }, { mergeWithLastSubmission: false });
}

/** The peer's request handler: `/interaction/<uid>` answered at once (see above), everything else by the provider. */
export function answeringInteractions(provider: Provider): (req: IncomingMessage, res: ServerResponse) => void {
  const interactions = provider as unknown as InteractionApi;
  const callback = provider.callback();
  return (req, res) => {
    if (!req.url?.startsWith("/interaction/")) return callback(req, res);
    finishInteraction(interactions, req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(error));
    });
  };
}
