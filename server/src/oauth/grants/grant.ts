/**
 * The contract every grant type module implements (one file per grant under this folder,
 * looked up by `grant_type`, as in panva/node-oidc-provider's lib/actions/grants).
 */
import type { AuditEventInput } from "../../stores/audit.js";
import type { Stores } from "../../stores/index.js";
import type { Client } from "../client-auth.js";
import type { FormParams } from "../form.js";
import type { IssuedToken, TokenSigner } from "../issue.js";
import type { ResourceServers } from "../resource.js";

/** The stores a grant uses; of the catalog, the APIs a `resource` may name (RFC 8707). */
export type GrantStores = Pick<Stores, "codes" | "tokens" | "users" | "psd2Consents"> & { catalog: ResourceServers["catalog"] };

/** Everything a grant handler may use; no HTTP request or response. */
export interface GrantContext {
  stores: GrantStores;
  /** The authenticated client. */
  client: Client;
  /** The token request's form parameters (each at most once, empty ones dropped). */
  params: FormParams;
  now: Date;
  /**
   * The JWK thumbprint of the key of the request's verified DPoP proof (RFC 9449 §5), if it
   * carried one: the issued tokens are bound to it (`cnf.jkt`).
   */
  dpopJkt?: string;
  /**
   * The thumbprint (`x5t#S256`) of the TLS client certificate the request presented (RFC 8705),
   * if any: the issued access token is bound to it (`cnf.x5t#S256`, §3).
   */
  certificateThumbprint?: string;
  /** Signs JWT access tokens (RFC 9068); its `baseUrl` also names the APIs a `resource` may ask for (RFC 8707). */
  signer: TokenSigner;
  /** PSD2 RTS Art. 10a: days after the last SCA that a refresh token of a grant needing SCA works; 0 = no limit. */
  scaReauthenticationDays: number;
  /**
   * The audit event of a token this grant issues (token.issued, token.refreshed), stored in
   * the same transaction as the token: no token without its event, no event without its token.
   */
  auditEvent(issued: IssuedToken): AuditEventInput;
}

export interface Grant {
  /** The `grant_type` value this module handles. */
  type: string;
  /** Validates the request and issues the token. Throws OAuthError subclasses. */
  handle(ctx: GrantContext): Promise<IssuedToken>;
}
