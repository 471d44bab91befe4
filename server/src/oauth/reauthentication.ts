/**
 * PSD2 RTS Art. 10a (added by Regulation (EU) 2022/2360): account information may be
 * accessed without a new strong customer authentication for at most 180 days after the last
 * one. Applied to refresh tokens of grants that needed SCA: once the interval has passed,
 * the refresh token stops working and the TPP must send the PSU through a new authorization.
 */
import { ACR_SCA } from "../kernel/acr.js";
import type { ClientRecord } from "../stores/clients.js";
import type { Authentication } from "../stores/tokens.js";

const DAY_MS = 86_400_000;

/**
 * Whether a grant of `scopes` must be authorized again: `days` is not 0, a scope belongs to
 * a `requiresSca` product of the client, and the grant's last SCA is more than `days` days
 * before `now` (or the grant has none).
 * @param days - the re-authentication interval in days (SCA_REAUTHENTICATION_DAYS); 0 = off.
 */
export function reauthenticationDue(
  scopes: readonly string[],
  authentication: Authentication | null,
  products: readonly Pick<ClientRecord["products"][number], "scopes" | "requiresSca">[],
  days: number,
  now: Date,
): boolean {
  if (days === 0 || !products.some((p) => p.requiresSca && p.scopes.some((s) => scopes.includes(s)))) return false;
  return authentication?.acr !== ACR_SCA || now.getTime() - authentication.authTime.getTime() > days * DAY_MS;
}
