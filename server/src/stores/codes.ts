/**
 * Authorization codes (RFC 6749 §4.1.2): single use, short-lived, bound to the client, the
 * redirect URI, the user, the scopes and the PKCE challenge. Only the SHA-256 of a code is stored.
 */
import type { Authentication, GrantConsent, TokenOwner } from "./tokens.js";

export interface AuthorizationCodeRecord {
  id: string;
  appId: string;
  userId: string;
  redirectUri: string;
  scopes: string[];
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  /** RFC 9449 §10: the DPoP key thumbprint (`dpop_jkt`) the code is bound to; null when unbound. */
  dpopJkt: string | null;
  /** OpenID Connect Core §3.1.2.1: the request's `nonce`, carried into the ID token; null when none. */
  nonce: string | null;
  /** RFC 8707: the resource indicators of the authorization request; null when none. */
  resource: readonly string[] | null;
  /** How the user authenticated for this code (`acr`, `amr`, `auth_time`); null for codes from before SCA. */
  authentication: Authentication | null;
  /** The PSD2 consent the code authorizes and its approved authorization details (RFC 9396); null when none. */
  consent: GrantConsent | null;
  expiresAt: Date;
  usedAt: Date | null;
}

/** A code to store: the record's fields but its id and use, plus the SHA-256 hex of the code. */
export type NewAuthorizationCode = Omit<AuthorizationCodeRecord, "id" | "usedAt" | "consent"> & { codeHash: string; consent?: GrantConsent };

export interface AuthorizationCodeStore {
  insert(code: NewAuthorizationCode): Promise<void>;
  /** @returns the code with this SHA-256 hex, or undefined. */
  byHash(codeHash: string): Promise<AuthorizationCodeRecord | undefined>;
  /** @returns the code with this id (a token family's origin), or undefined. */
  byId(id: string): Promise<AuthorizationCodeRecord | undefined>;
  /** Deletes the unredeemed codes of a user (optionally at one app). */
  deleteUnredeemed(owner: Required<Pick<TokenOwner, "userId">> & Pick<TokenOwner, "appId">): Promise<void>;
  /**
   * Deletes up to `limit` codes that expired before `before` and have no token family left
   * (the refresh grant reads a family's original scopes from its code). @returns how many.
   */
  deleteSpent(before: Date, limit: number): Promise<number>;
}
