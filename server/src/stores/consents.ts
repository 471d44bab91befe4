/**
 * Remembered consents: a user's consent to an app for a set of scopes (one row per user
 * and app), and the descriptions of scopes shown on the consent page.
 */

/** A consent row (scopes as stored, space-separated). */
export interface ConsentRow {
  id: string;
  userId: string;
  appId: string;
  scope: string;
  revokedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface ConsentStore {
  /** @returns the scopes the user has consented to for this app (empty if none or revoked). */
  scopesOf(userId: string, appId: string): Promise<string[]>;
  /** Remembers the user's consent to `scopes` for the app, adding to what was consented before. */
  remember(userId: string, appId: string, scopes: string[]): Promise<void>;
  /** Live (not revoked) consents, newest first, optionally of one user and/or app. */
  list(filter: { userId?: string | null; appId?: string | null }): Promise<ConsentRow[]>;
  /** @returns undefined when unknown. */
  find(id: string): Promise<ConsentRow | undefined>;
  /** Revokes a live consent. @returns the consent, or undefined when unknown or already revoked. */
  revoke(id: string, now: Date): Promise<ConsentRow | undefined>;
  /** @returns descriptions of the given scopes, in the given order (the name itself when none is stored). */
  describeScopes(names: string[]): Promise<{ name: string; description: string }[]>;
}
