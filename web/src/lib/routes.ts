/**
 * The SPA's addresses: the route patterns App.tsx declares, and one typed function per page
 * that builds its URL. Every link and navigation inside the SPA takes its path from here.
 */
import type { DashboardRange } from "../api/admin";
import { appFilterQuery, type AppListFilter } from "./apps";
import { filterQuery, type AuditFilter } from "./audit";
import { rangeQuery } from "./dashboard";
import { tokenFilterQuery, type TokenFilter } from "./tokens";

/** The react-router pattern of each page. */
export const patterns = {
  home: "/",
  login: "/login",
  consent: "/consent",
  error: "/error",
  logout: "/logout",
  account: "/account",
  console: "/admin",
  organizations: "/admin/organizations",
  apps: "/admin/apps",
  appDetail: "/admin/apps/:id",
  products: "/admin/products",
  users: "/admin/users",
  /** One consent of a user to an app's scopes, with its evidence. */
  scopeConsent: "/admin/consents/:id",
  tokens: "/admin/tokens",
  search: "/admin/search",
  psd2Consents: "/admin/psd2-consents",
  psd2Consent: "/admin/psd2-consents/:id",
  audit: "/admin/audit",
  signingKeys: "/admin/signing-keys",
  identityProviders: "/admin/identity-providers",
  /** The queue of dynamic registrations awaiting the bank's approval. */
  registrations: "/admin/registrations",
} as const;

const withQuery = (path: string, query: Record<string, string>) => `${path}?${new URLSearchParams(query).toString()}`;
/** The path, with the query when it has parameters. */
const withOptionalQuery = (path: string, query: Record<string, string>) => (Object.keys(query).length > 0 ? withQuery(path, query) : path);

/** Builds the URL of each page. */
export const routes = {
  home: () => patterns.home,
  /** The sign-in page of an authorization request. */
  login: (interactionId: string) => withQuery(patterns.login, { interaction: interactionId }),
  /** The server's address that sends the PSU of an authorization request to sign in at the bank's identity provider (not a page of the SPA). */
  signInAtBank: (interactionId: string) => withQuery("/federation/start", { interaction: interactionId }),
  /** The console's and Account page's sign-in, coming back to `next` (a path on this origin) afterwards. */
  signIn: (next: string) => withQuery(patterns.login, { next }),
  /** The consent page of an authorization request. */
  consent: (interactionId: string) => withQuery(patterns.consent, { interaction: interactionId }),
  /** The error page, with an OAuth error code and its description. */
  error: (error: string, errorDescription?: string) =>
    withQuery(patterns.error, errorDescription ? { error, error_description: errorDescription } : { error }),
  account: () => patterns.account,
  /** The console's home page, the dashboard, over a range (the default: the last 24 hours). */
  dashboard: (range?: DashboardRange) => withOptionalQuery(patterns.console, range ? rangeQuery(range) : {}),
  organizations: () => patterns.organizations,
  /** The apps, already filtered (`organization`, `developer`: ids), e.g. `apps({ developer })`. */
  apps: (filter: Partial<AppListFilter> = {}) => withOptionalQuery(patterns.apps, appFilterQuery(filter)),
  /** An app's page, at one of its tabs (AppDetailPage.tsx APP_TABS), else the first. */
  appDetail: (id: string, tab?: string) => `${patterns.apps}/${encodeURIComponent(id)}${tab ? `?tab=${encodeURIComponent(tab)}` : ""}`,
  products: () => patterns.products,
  /** The users page, searched by username and with one user's factors, tokens and consents open (`user`: its id). */
  users: (select: { search?: string; user?: string } = {}) =>
    withOptionalQuery(patterns.users, { ...(select.search ? { search: select.search } : {}), ...(select.user ? { user: select.user } : {}) }),
  /** Issued tokens, already filtered, e.g. `tokens({ clientId, state: "REVOKED" })`. */
  tokens: (filter: Partial<TokenFilter> = {}) => withOptionalQuery(patterns.tokens, tokenFilterQuery(filter)),
  /** What the console's search box finds for a text. */
  search: (text: string) => withOptionalQuery(patterns.search, text ? { q: text } : {}),
  psd2Consents: () => patterns.psd2Consents,
  /** One PSD2 consent, with the evidence of its signed authorization. */
  psd2Consent: (id: string) => patterns.psd2Consent.replace(":id", () => encodeURIComponent(id)),
  /** One consent of a user to an app's scopes, with the evidence of its signed authorizations. */
  scopeConsent: (id: string) => patterns.scopeConsent.replace(":id", () => encodeURIComponent(id)),
  /** The audit log, already filtered (`from` and `to` ISO 8601 instants), e.g. `audit({ clientId })`. */
  audit: (filter: Partial<AuditFilter> = {}) => withOptionalQuery(patterns.audit, filterQuery(filter)),
  /** The server's signing keys and their rotation. */
  signingKeys: () => patterns.signingKeys,
  /** The bank's identity providers, where the PSUs of the apps and products that name one sign in. */
  identityProviders: () => patterns.identityProviders,
  /** The dynamic registrations (RFC 7591) awaiting the bank's approval, oldest first. */
  registrations: () => patterns.registrations,
};

/**
 * Why the sign-in page of an authorization request was opened again, passed as react-router
 * navigation state `{ notice }`: "inactive" after the idle limit between sign-in and consent
 * (PSD2 RTS Art. 4(3)(d)), with the server's words for it ("" when it gave none).
 */
export interface LoginNotice {
  reason: "inactive";
  message: string;
}

/** Whether `path` ("/admin/apps?x=1") is the page `base` ("/admin") or one below it. */
export function isWithin(path: string, base: string): boolean {
  return path === base || (path.startsWith(base) && /^[/?#]/.test(path.slice(base.length)));
}
