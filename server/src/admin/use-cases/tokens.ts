/**
 * Admin use cases of issued tokens. Each runs in one transaction with its audit event (common.ts).
 */
import type { Database } from "../../stores/index.js";
import type { TokenRow } from "../../stores/tokens.js";
import { auditedChange, found, revocationBy, type Audited } from "./common.js";

/** Revokes one access token and its refresh token, if any. @returns the row. @throws NotFound */
export function revokeToken(db: Database, o: { id: string } & Audited): Promise<TokenRow> {
  return auditedChange(db, o.audit, (stores) => found(stores.tokens.revokeRow(o.id, revocationBy(o.audit)), "no token with this id"));
}

/**
 * Revokes every live access and refresh token of an app, of a user, or of a user at an app.
 * @returns how many access tokens were revoked.
 */
export function revokeTokens(db: Database, o: ({ appId: string; userId?: string } | { appId?: string; userId: string }) & Audited): Promise<number> {
  return auditedChange(db, o.audit, (stores) => stores.tokens.revokeTokensOf({ appId: o.appId, userId: o.userId }, revocationBy(o.audit)));
}
