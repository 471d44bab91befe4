/**
 * The token endpoint (RFC 6749 §3.2), served at `POST /oauth2/v1/token` and `POST /token`:
 * read the form, authenticate the client, check a DPoP proof (RFC 9449 §5), run the grant
 * named by `grant_type`, answer the token response with `Cache-Control: no-store`
 * (RFC 6749 §5.1).
 */
import { contextOf } from "../kernel/request-context.js";
import type { ServerResponse } from "node:http";
import type { AuditEventInput } from "../stores/audit.js";
import type { Database } from "../stores/index.js";
import { sendJson } from "../kernel/json.js";
import { readClientRequest, type ClientRequest, type EndpointContext } from "./client-request.js";
import { dpopKeyOf, nonceHeader, type DpopSettings } from "./dpop-request.js";
import { InvalidRequest, UnsupportedGrantType } from "../kernel/errors.js";
import { signedNow } from "../keys/backend.js";
import { signIdToken, type OpenIdProvider } from "./id-token.js";
import { grants } from "./grants/index.js";
import { RefreshTokenReused } from "./grants/refresh-token.js";
import type { Metrics } from "../kernel/metrics.js";
import type { Client } from "./client-auth.js";
import type { IssuedToken, TokenSigner } from "./issue.js";
import { formatTokenResponse } from "./token-response.js";
import { presentedCertificate } from "../certificates/presented.js";
import { inSpan } from "../kernel/spans.js";

/** Headers of every response that carries a token or secret (RFC 6749 §5.1). */
export const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" } as const;

/** The `profile` label of an issued token: `fapi2` (RFC 6749 members only), else the app's token response profile. */
function responseProfile(client: Client): string {
  return client.securityProfile === "fapi2" ? "fapi2" : client.tokenResponseProfile;
}

/**
 * The ID token of a grant with `openid` (oauth/id-token.ts), its subject the user's for this
 * client (public or pairwise, subject.ts).
 * @throws ServiceUnavailable (503 `temporarily_unavailable`) when no key can sign now (the HSM is away):
 *   no token response goes out without its ID token.
 */
async function signedIdToken(op: OpenIdProvider, issuer: string, client: Client, issued: IssuedToken, openId: NonNullable<IssuedToken["openId"]>, now: Date): Promise<string> {
  return signedNow(
    "the ID token",
    signIdToken(op.keyring, { issuer, subject: op.subjects(client, issued.userId!), clientId: client.clientId, alg: client.idTokenSignedResponseAlg, accessToken: issued.accessToken, ...openId, now }),
  );
}

/**
 * Builds the handler of POST token requests (after http/dispatch.ts read the form).
 * @param op - signs the ID tokens of grants with `openid`, and names their subjects.
 * @param scaReauthenticationDays - see GrantContext (SCA_REAUTHENTICATION_DAYS).
 * @param metrics - counts issued tokens and refresh token reuse; undefined: nothing counted.
 */
export function tokenEndpoint(db: Database, endpoint: EndpointContext, dpop: DpopSettings, op: OpenIdProvider, scaReauthenticationDays: number, metrics?: Metrics) {
  const signer: TokenSigner = { keyring: op.keyring, issuer: endpoint.issuer, baseUrl: endpoint.baseUrl };
  return async (req: ClientRequest, res: ServerResponse): Promise<void> => {
    const now = new Date();
    const { params, client } = await readClientRequest(db, req, endpoint, now);
    const grantType = params.grant_type;
    if (grantType === undefined) throw new InvalidRequest("grant_type is required");
    const grant = grants.get(grantType);
    if (!grant) throw new UnsupportedGrantType(`grant_type "${grantType}" is not supported`);
    const certificateThumbprint = presentedCertificate(req)?.certificate.x5tS256;
    const dpopJkt = await dpopKeyOf(req, endpoint.url, client, dpop, now, certificateThumbprint !== undefined);
    const auditEvent = (issued: IssuedToken): AuditEventInput => ({
      type: grant.type === "refresh_token" ? "token.refreshed" : "token.issued",
      actor: client.clientId,
      subject: issued.userId,
      details: { grant_type: grant.type, scope: issued.scopes.join(" "), ...(issued.jkt ? { dpop_jkt: issued.jkt } : {}), ...(issued.x5t ? { "x5t#S256": issued.x5t } : {}) },
      request: contextOf(req),
    });
    const issued = await inSpan(`grant ${grant.type}`, () => grant.handle({ stores: db, client, params, now, dpopJkt, certificateThumbprint, scaReauthenticationDays, signer, auditEvent }), {
      "tollgate.grant_type": grant.type,
    }).catch((err: unknown) => {
      if (err instanceof RefreshTokenReused) metrics?.refreshTokenReuse();
      throw err;
    });
    const idToken = issued.openId && (await signedIdToken(op, endpoint.issuer, client, issued, issued.openId, now));
    sendJson(res, 200, formatTokenResponse(client, issued, now, idToken), { ...NO_STORE, ...nonceHeader(dpop, now) });
    metrics?.tokenIssued(grant.type, responseProfile(client), client.clientId);
  };
}
