/**
 * The bank's identity providers (federation/): upstream OpenID Providers that PSUs sign in at,
 * and the PSUs' identities there, each linked to one Tollgate user.
 */

/** How Tollgate authenticates at an identity provider's token and PAR endpoints (OpenID Connect Core §9). */
export type UpstreamClientAuth = "private_key_jwt" | "client_secret_basic";

/** An identity provider as stored. */
export interface IdentityProviderRecord {
  id: string;
  /** Unique; shown to PSUs and in the audit. */
  name: string;
  /** Its issuer identifier (OpenID Connect Discovery §4): where its metadata is, and the `iss` of its answers. */
  issuer: string;
  /** Tollgate's client id there. */
  clientId: string;
  clientAuthMethod: UpstreamClientAuth;
  /** The client secret of `client_secret_basic`, sealed under the key-encryption key (`identity-provider:<id>`); null for private_key_jwt. */
  clientSecret: string | null;
  /** The scopes asked for, `openid` first. */
  scopes: string[];
  /** The ID token claim naming the bank's customer number; null: `sub`. */
  customerNumberClaim: string | null;
  /** The `acr` values that mean strong customer authentication (PSD2 RTS Art. 4). */
  scaAcrValues: string[];
  createdAt: Date;
  updatedAt: Date;
}

/** The settings of an identity provider, as created or changed. */
export type IdentityProviderSettings = Omit<IdentityProviderRecord, "id" | "createdAt" | "updatedAt">;

/** A PSU's sign-in at an identity provider: who they are there. */
export interface UpstreamSignIn {
  identityProviderId: string;
  /** Its `sub`. */
  subject: string;
  /** The customer number its claim named; null when none. */
  customerNumber: string | null;
}

export interface IdentityProviderStore {
  /** Every identity provider, by name. */
  list(): Promise<IdentityProviderRecord[]>;
  /** @returns undefined when unknown. */
  find(id: string): Promise<IdentityProviderRecord | undefined>;
  /** @throws Conflict when the name is taken. */
  create(settings: IdentityProviderSettings): Promise<IdentityProviderRecord>;
  /**
   * Changes some settings. `clientSecret` comes sealed for the provider's id, so a new
   * provider gets its secret here, after {@link create}.
   * @throws NotFound when unknown; Conflict when the new name is taken.
   */
  update(id: string, changes: Partial<IdentityProviderSettings>): Promise<IdentityProviderRecord>;
  /** Deletes it: its apps and products fall back to Tollgate's sign-in, its links go. @throws NotFound when unknown. */
  delete(id: string): Promise<void>;
  /**
   * The Tollgate user of a PSU's sign-in: the one linked to its (identity provider, `sub`),
   * or a new user `username` (no password: they sign in there only) linked to it now. The
   * link records the customer number and the time.
   * @throws Conflict when `username` is taken by a user not linked to it.
   */
  userOf(signIn: UpstreamSignIn, username: string, now: Date): Promise<string>;
  /** The customer number of a user's latest sign-in at an identity provider; null when none. */
  customerNumberOf(userId: string): Promise<string | null>;
}
