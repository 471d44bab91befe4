/**
 * New access tokens (and refresh tokens for user grants): random values, or a signed JWT
 * (RFC 9068) when the token's API products ask for one, lifetimes from the app, and the row a
 * grant stores, which holds only their SHA-256 hashes.
 */
import { newId } from "../kernel/ids.js";
import type { Keyring } from "../keys/keyring.js";
import { signedNow } from "../keys/backend.js";
import { accessTokenFormat, signAccessToken } from "./access-token-jwt.js";
import type { Authentication, GrantConsent, NewAccessToken } from "../stores/tokens.js";
import { tokenValue } from "./tokens.js";
import type { Client } from "./client-auth.js";
import { hashSecret, newSecret } from "../kernel/secrets.js";
import { OPENID_SCOPE } from "./scopes.js";

/** The result of a grant: token values in clear (returned once, never stored) and their metadata. */
export interface IssuedToken {
  accessToken: string;
  issuedAt: Date;
  expiresAt: Date;
  scopes: string[];
  apiProducts: string[];
  refresh?: { token: string; issuedAt: Date; expiresAt: Date };
  refreshCount: number;
  /** The resource owner of a user grant. */
  userId?: string;
  /** DPoP binding (RFC 9449 §6): the proof key's JWK thumbprint, `cnf.jkt`. */
  jkt?: string;
  /** Certificate binding (RFC 8705 §3): the client certificate's thumbprint, `cnf.x5t#S256`. */
  x5t?: string;
  /** The RFC 9396 authorization details the tokens carry, JSON text (returned in the token response, §7). */
  authorizationDetails?: string;
  /**
   * A user grant with the `openid` scope: what its ID token says besides the token itself
   * (oauth/id-token.ts), the authentication request's `nonce` (null at a refresh) and how the
   * user authenticated. Absent: no ID token.
   */
  openId?: { nonce: string | null; authentication: Authentication | undefined };
}

/** What a grant asks to issue. */
export interface IssueRequest {
  client: Client;
  grantType: string;
  scopes: string[];
  apiProducts: string[];
  now: Date;
  userId?: string;
  /** Issue a refresh token too (user grants), valid for the app's refresh token lifetime. */
  withRefreshToken?: boolean;
  /** Refresh token expiry to keep instead (rotation keeps the family's first expiry). */
  refreshExpiresAt?: Date;
  refreshCount?: number;
  /** Rotation family (the originating authorization code's id) for user grants. */
  familyId?: string;
  /** Bind the tokens to this DPoP key thumbprint (RFC 9449 §6). */
  jkt?: string;
  /** Bind the access token to the client certificate with this thumbprint (RFC 8705 §3). */
  x5t?: string;
  /** The user's authentication behind a user grant (`acr`, `amr`, `auth_time`). */
  authentication?: Authentication;
  /** The PSD2 consent and the RFC 9396 authorization details the tokens carry. */
  consent?: GrantConsent;
  /** No token outlives this time (a PSD2 account consent's end of access); absent: the app's lifetimes alone. */
  notAfter?: Date;
  /** The authentication request's `nonce` (OpenID Connect Core §3.1.2.1), for the ID token of a code exchange. */
  nonce?: string | null;
  /** RFC 8707: the resource URIs the access token is restricted to (oauth/resource.ts); absent: none asked for. */
  audience?: readonly string[];
}

/** What signs JWT access tokens: this server's keys, its issuer identifier, and BASE_URL, the audience of a JWT without resource indicators. */
export interface TokenSigner {
  keyring: Keyring;
  issuer: string;
  baseUrl: string;
}

const SECOND_MS = 1000;

/** The earlier of `at` and `notAfter` (when given). */
function capped(at: Date, notAfter: Date | undefined): Date {
  return notAfter !== undefined && notAfter < at ? notAfter : at;
}

/**
 * Creates a new access token (plus refresh token if asked), for the grant to store; a user
 * token with the `openid` scope says what its ID token is to carry (IssuedToken.openId).
 * The access token is a JWT signed by `signer` when every API product it grants issues JWTs
 * (oauth/access-token-jwt.ts), else a split token. Lifetimes: the app's
 * `accessTokenLifetimeSeconds` / `refreshTokenLifetimeSeconds`, neither beyond `notAfter`.
 * @returns the row to store (hashes only) and what the client is given (the values).
 * @throws ServiceUnavailable (503) when a JWT cannot be signed now (keys/backend.ts signedNow).
 */
export async function newToken(r: IssueRequest, signer: TokenSigner): Promise<{ row: NewAccessToken; issued: IssuedToken }> {
  const id = newId();
  const expiresAt = capped(new Date(r.now.getTime() + r.client.accessTokenLifetimeSeconds * SECOND_MS), r.notAfter);
  const format = accessTokenFormat(r.scopes, r.apiProducts, r.client.products);
  const accessToken =
    format === "jwt"
      ? await signedNow("the access token", signAccessToken(signer.keyring, {
          issuer: signer.issuer,
          jti: id,
          clientId: r.client.clientId,
          userId: r.userId,
          audience: r.audience ?? [signer.baseUrl],
          scopes: r.scopes,
          issuedAt: r.now,
          expiresAt,
          jkt: r.jkt,
          x5t: r.x5t,
          authentication: r.authentication,
          authorizationDetails: r.consent?.authorizationDetails,
        }))
      : tokenValue(id, newSecret());
  const refresh = r.withRefreshToken
    ? {
        token: tokenValue(id, newSecret()),
        issuedAt: r.now,
        expiresAt: capped(r.refreshExpiresAt ?? new Date(r.now.getTime() + r.client.refreshTokenLifetimeSeconds * SECOND_MS), r.notAfter),
      }
    : undefined;
  const row: NewAccessToken = {
    id,
    tokenHash: hashSecret(accessToken),
    appId: r.client.appId,
    credentialId: r.client.credentialId,
    userId: r.userId,
    grantType: r.grantType,
    scopes: r.scopes,
    apiProducts: r.apiProducts,
    issuedAt: r.now,
    expiresAt,
    refresh: refresh && { tokenHash: hashSecret(refresh.token), issuedAt: refresh.issuedAt, expiresAt: refresh.expiresAt },
    refreshCount: r.refreshCount,
    familyId: r.familyId,
    jkt: r.jkt,
    x5t: r.x5t,
    authentication: r.authentication,
    consent: r.consent,
    audience: r.audience,
    format,
  };
  const issued: IssuedToken = {
    accessToken,
    issuedAt: r.now,
    expiresAt,
    scopes: r.scopes,
    apiProducts: r.apiProducts,
    refresh,
    refreshCount: r.refreshCount ?? 0,
    userId: r.userId,
    jkt: r.jkt,
    x5t: r.x5t,
    authorizationDetails: r.consent?.authorizationDetails,
    openId: r.userId !== undefined && r.scopes.includes(OPENID_SCOPE) ? { nonce: r.nonce ?? null, authentication: r.authentication } : undefined,
  };
  return { row, issued };
}
