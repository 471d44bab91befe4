/**
 * The console's global search (components/AdminLayout.tsx, pages/admin/SearchPage.tsx): what
 * the search is for, what it found said in words, and which of an app's consumer keys matched.
 */
import type { SearchResults } from "../api/admin";

/** A text the search looks tokens up by: 4 or more of a token id's characters, lowercase letters and digits (server/src/admin/resolvers/tokens.ts). */
const TOKEN_ID_TEXT = /^[0-9a-z]{4,25}$/;

/** Whether the search looks tokens up for `text` (apps and users are looked up for any text). */
export const searchesTokens = (text: string) => TOKEN_ID_TEXT.test(text);

/** The search text of the results page's query string (`q`), trimmed; "" when none. */
export const readSearchText = (params: URLSearchParams) => params.get("q")?.trim() ?? "";

/** "1 app", "no users", "3 tokens". */
export function countOf(count: number, noun: string): string {
  if (count === 0) return `no ${noun}s`;
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/**
 * What a search found, in a sentence for its live region: "Found 1 app, no users, 2 tokens, no
 * PSD2 consents and no audit events for “abc”." or "Nothing found for “abc”.".
 */
export function resultsSummary(results: SearchResults, text: string): string {
  const { apps, users, tokens, psd2Consents, auditEvents } = results;
  if (apps.length + users.length + tokens.length + psd2Consents.length + auditEvents.length === 0) return `Nothing found for “${text}”.`;
  const found = [countOf(apps.length, "app"), countOf(users.length, "user"), countOf(tokens.length, "token"), countOf(psd2Consents.length, "PSD2 consent")];
  return `Found ${found.join(", ")} and ${countOf(auditEvents.length, "audit event")} for “${text}”.`;
}

/** A text the search looks audit events up by: a request id or x-fapi-interaction-id (server/src/kernel/limits.ts REQUEST_ID_PATTERN). */
export const searchesRequests = (text: string) => /^[A-Za-z0-9._-]{1,64}$/.test(text);

/** The consumer keys of an app that contain the text (case-insensitive), as the search matched them; none when it matched the name. */
export function matchingKeys(credentials: ReadonlyArray<{ consumerKey: string }>, text: string): string[] {
  const needle = text.toLowerCase();
  return needle ? credentials.map((c) => c.consumerKey).filter((key) => key.toLowerCase().includes(needle)) : [];
}
