/**
 * The pure parts of the console's token lists (components/TokenColumns.tsx,
 * pages/admin/TokensPage.tsx): a token's short id, who revoked it in words, and the tokens
 * page's filter as the URL holds it and as the tokens query takes it.
 */
import type { TokensFilter, TokenState } from "../api/admin";

/**
 * Characters of a token's id shown in the console: those a refusal's audit details keep as
 * `token_id_prefix` (server/src/http/refusals.ts: "c", 8 of the creation time, 4 of a
 * counter), so that a refusal's token is recognised in a token list, and found with the
 * console's search, by the very same text.
 */
export const TOKEN_ID_PREFIX_LENGTH = 13;

/** The short id a token is named by in the console ("cm3x5k2ab0001"). */
export const tokenIdPrefix = (id: string) => id.slice(0, TOKEN_ID_PREFIX_LENGTH);

/** What revoked tokens automatically (`system:<reason>` of AccessToken.revokedBy), in words. */
const SYSTEM_REASONS: Record<string, string> = {
  refresh_token_reuse: "refresh token reused",
  code_replay: "authorization code used twice",
};

/**
 * Who revoked a token (AccessToken.revokedBy, named as audit actors are), in words:
 * "by admin alice", "by the client (RFC 7009)" (the token's own client, `clientId`), "by
 * admin client demo-admin-key" (another client: the admin API), "by the end user (consent
 * withdrawn)", "automatically: refresh token reused"; "" when it was not recorded (null or empty).
 */
export function revokedByText(revokedBy: string | null | undefined, clientId: string): string {
  if (!revokedBy) return "";
  const colon = revokedBy.indexOf(":");
  const kind = colon < 0 ? revokedBy : revokedBy.slice(0, colon);
  const name = colon < 0 ? "" : revokedBy.slice(colon + 1);
  switch (kind) {
    case "admin":
      return name ? `by admin ${name}` : "by an admin";
    case "client":
      return name === clientId ? "by the client (RFC 7009)" : `by admin client ${name}`;
    case "user":
      return "by the end user (consent withdrawn)";
    case "system":
      return `automatically: ${SYSTEM_REASONS[name] ?? (name.replace(/_/g, " ") || "by Tollgate")}`;
    default:
      return `by ${revokedBy}`;
  }
}

/** The token states, as the tokens page's filter offers them. */
export const TOKEN_STATES: ReadonlyArray<{ state: TokenState; label: string }> = [
  { state: "LIVE", label: "Live (the gateway accepts it)" },
  { state: "REVOKED", label: "Revoked" },
  { state: "EXPIRED", label: "Expired" },
];

/** The tokens page's filter, as its URL's query string holds it ("" for a criterion not given). */
export interface TokenFilter {
  state: TokenState | "";
  /** A consumer key. */
  clientId: string;
  /** An app's id (`app` in the URL). */
  appId: string;
  /** A user's id (`user` in the URL). */
  userId: string;
}

export const EMPTY_TOKEN_FILTER: TokenFilter = { state: "", clientId: "", appId: "", userId: "" };

/** The URL's name of each criterion, in the order the URL lists them. */
const PARAMS = [
  ["state", "state"],
  ["clientId", "clientId"],
  ["appId", "app"],
  ["userId", "user"],
] as const satisfies ReadonlyArray<readonly [keyof TokenFilter, string]>;

const isState = (value: string): value is TokenState => TOKEN_STATES.some((s) => s.state === value);

/**
 * The filter of the tokens page's query string (`state`, `clientId`, `app`, `user`), trimmed.
 * @returns the filter, and whether a `state` that is not one was left out.
 */
export function readTokenFilter(params: URLSearchParams): { filter: TokenFilter; badState: boolean } {
  const filter = { ...EMPTY_TOKEN_FILTER };
  let badState = false;
  for (const [key, param] of PARAMS) {
    const value = params.get(param)?.trim() ?? "";
    if (value === "") continue;
    if (key !== "state") filter[key] = value;
    else if (isState(value.toUpperCase())) filter.state = value.toUpperCase() as TokenState;
    else badState = true;
  }
  return { filter, badState };
}

/** The query parameters of a filter: the criteria given, in a fixed order. */
export function tokenFilterQuery(filter: Partial<TokenFilter>): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [key, param] of PARAMS) {
    const value = filter[key]?.trim();
    if (value) query[param] = value;
  }
  return query;
}

/** The tokens query's arguments of a filter: tokens in every state unless one is chosen. */
export function tokenVariables(filter: TokenFilter): TokensFilter {
  const { state, clientId, appId, userId } = filter;
  return {
    ...(state ? { state } : { liveOnly: false }),
    ...(clientId ? { clientId } : {}),
    ...(appId ? { appId } : {}),
    ...(userId ? { userId } : {}),
  };
}

/** Whether the filter has any criterion. */
export const hasTokenCriteria = (filter: TokenFilter) => Object.keys(tokenFilterQuery(filter)).length > 0;
