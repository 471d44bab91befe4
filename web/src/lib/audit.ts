/**
 * The audit page's pure parts (pages/admin/AuditPage.tsx): its filter as the URL holds it
 * and as the auditEvents query takes it, the date range typed in the browser's time zone,
 * what an event's details say, and the CSV and JSON exports.
 */
import type { AuditEvent, AuditEventsFilter, AuditOutcome, PageInfo, Psd2Consent } from "../api/admin";
import { formatAmount, isAccountAccess, isPayment, readAuthorizationDetails } from "./authorization-details";

/** The event types of the audit log (schema.graphql AuditEvent.type), with their names in words. `admin.<mutation>` types are not listed. */
export const EVENT_TYPES: ReadonlyArray<{ type: string; label: string }> = [
  { type: "token.issued", label: "Token issued" },
  { type: "token.refreshed", label: "Token refreshed" },
  { type: "token.revoked", label: "Token revoked" },
  { type: "client.authentication_failed", label: "Client authentication failed" },
  { type: "token.refused", label: "Token request refused" },
  { type: "gateway.refused", label: "Gateway call refused" },
  { type: "signin.succeeded", label: "Sign-in succeeded" },
  { type: "signin.failed", label: "Sign-in failed" },
  { type: "sca.succeeded", label: "Strong customer authentication succeeded" },
  { type: "sca.failed", label: "Strong customer authentication failed" },
  { type: "sca.blocked", label: "Strong customer authentication blocked" },
  { type: "consent.granted", label: "Consent granted" },
  { type: "consent.revoked", label: "Consent revoked" },
  { type: "factor.enrolled", label: "Sign-in factor enrolled" },
  { type: "factor.removed", label: "Sign-in factor removed" },
  { type: "factor.reset", label: "Sign-in factors reset" },
  { type: "password.changed", label: "Temporary password replaced by the user" },
  { type: "psd2_consent.created", label: "PSD2 consent created" },
  { type: "psd2_consent.consumed", label: "PSD2 consent consumed" },
  { type: "psd2_consent.payment_rejected", label: "PSD2 payment rejected by the bank" },
  { type: "psd2_consent.payment_outcome_unknown", label: "PSD2 payment outcome unknown" },
  { type: "psd2_consent.payment_not_sent", label: "PSD2 payment not sent" },
  { type: "registration.created", label: "Client registered (RFC 7591)" },
  { type: "registration.updated", label: "Client registration updated (RFC 7592)" },
  { type: "registration.deleted", label: "Client registration deleted (RFC 7592)" },
  { type: "psd2_consent.revoked", label: "PSD2 consent revoked" },
  { type: "psd2_consent.terminated", label: "PSD2 consent terminated" },
];

/** The type's name in words ("Token issued"), or undefined for a type not listed (an `admin.<mutation>`). */
export function eventTypeLabel(type: string): string | undefined {
  return EVENT_TYPES.find((t) => t.type === type)?.label;
}

/**
 * The audit page's filter, as its URL's query string holds it ("" for a criterion not given).
 * `from` and `to` are ISO 8601 instants in UTC ("2026-11-24T23:00:00.000Z").
 */
export interface AuditFilter {
  type: string;
  /** A consumer key: the client's events, as actor or subject. */
  clientId: string;
  /** A user's events, as actor or subject. */
  username: string;
  /** The refused gateway calls to this API. */
  api: string;
  /** A refusal's reason (its details' `reason`, e.g. invalid_client). */
  reason: string;
  outcome: AuditOutcome | "";
  /** Inclusive. */
  from: string;
  /** Exclusive. */
  to: string;
  /** The request's X-Request-Id. */
  requestId: string;
  /** The request's x-fapi-interaction-id (a refusal's caller has it). */
  interactionId: string;
}

/** The filter's query parameters, in the order the URL lists them. */
export const FILTER_KEYS = ["type", "clientId", "username", "api", "reason", "outcome", "from", "to", "requestId", "interactionId"] as const satisfies ReadonlyArray<
  keyof AuditFilter
>;

export const EMPTY_FILTER: AuditFilter = { type: "", clientId: "", username: "", api: "", reason: "", outcome: "", from: "", to: "", requestId: "", interactionId: "" };

const OUTCOMES: readonly AuditOutcome[] = ["success", "failure"];

/**
 * The filter of a URL's query string. `from` and `to` may be ISO 8601 instants (with `Z` or an
 * offset), or a date and time without a zone ("2026-11-24T10:00", "2026-11-24"), read in the
 * browser's time zone; they are returned as UTC instants.
 * @returns the filter, and the parameters that were ignored because their value is not valid
 *   (an unknown outcome, a time that is not one), so that the page can say so.
 */
export function readFilter(params: URLSearchParams): { filter: AuditFilter; ignored: Array<keyof AuditFilter> } {
  const filter = { ...EMPTY_FILTER };
  const ignored: Array<keyof AuditFilter> = [];
  for (const key of FILTER_KEYS) {
    const value = params.get(key)?.trim() ?? "";
    if (value === "") continue;
    if (key === "outcome") {
      if ((OUTCOMES as readonly string[]).includes(value)) filter.outcome = value as AuditOutcome;
      else ignored.push(key);
    } else if (key === "from" || key === "to") {
      const instant = parseInstant(value);
      if (instant) filter[key] = instant;
      else ignored.push(key);
    } else {
      filter[key] = value;
    }
  }
  return { filter, ignored };
}

/** The query parameters of a filter: the criteria given, in {@link FILTER_KEYS} order. */
export function filterQuery(filter: Partial<AuditFilter>): Record<string, string> {
  const query: Record<string, string> = {};
  for (const key of FILTER_KEYS) {
    const value = filter[key]?.trim();
    if (value) query[key] = value;
  }
  return query;
}

/** The auditEvents arguments of a filter: the criteria given, nothing for the others. */
export function auditVariables(filter: AuditFilter): AuditEventsFilter {
  const { outcome, ...rest } = filter;
  const variables: AuditEventsFilter = filterQuery(rest);
  if (outcome) variables.outcome = outcome;
  return variables;
}

/** Whether the filter has any criterion. */
export const hasCriteria = (filter: AuditFilter) => Object.keys(filterQuery(filter)).length > 0;

/** What is wrong with a filter's time range ("" when nothing is): its start must come before its end. */
export function rangeError(filter: Pick<AuditFilter, "from" | "to">): string {
  if (!filter.from || !filter.to) return "";
  return Date.parse(filter.from) < Date.parse(filter.to) ? "" : "The start of the time range must be before its end.";
}

/* Times: the browser's time zone in the form, UTC in the URL and the API */

/** A datetime-local value ("2026-11-24T10:05", seconds and milliseconds optional), or a date alone. */
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?$/;
/** An ISO 8601 date and time with its zone (`Z` or an offset). */
const ZONED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i;

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const daysIn = (year: number, month: number) => [31, isLeap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;

/**
 * The UTC instant (ISO 8601) of a date and time in the browser's time zone, as a
 * datetime-local input gives it ("2026-11-24T10:05" or "2026-11-24T10:05:30"); a date alone
 * is its midnight. A time skipped by a daylight saving change is moved on as the browser does
 * (02:30 on a spring-forward night becomes 03:30).
 * @returns null when it is not such a value, or not a date of the calendar.
 */
export function fromLocalInput(value: string): string | null {
  const m = LOCAL.exec(value.trim());
  if (!m) return null;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((part) => (part === undefined ? undefined : Number(part)));
  if (year === undefined || month === undefined || day === undefined) return null;
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return null;
  const ms = m[7] === undefined ? 0 : Number(m[7].padEnd(3, "0"));
  const date = new Date(year, month - 1, day, hour, minute, second, ms);
  // new Date(y, …) maps years 0-99 to 1900-1999.
  date.setFullYear(year, month - 1, day);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/**
 * The datetime-local value of an instant in the browser's time zone: "2026-11-24T10:05", or
 * "2026-11-24T10:05:30" when it has seconds (milliseconds are dropped); "" for no instant.
 */
export function toLocalInput(iso: string): string {
  if (!iso) return "";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  const day = `${pad(date.getFullYear(), 4)}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
  const time = `${pad(date.getHours())}:${pad(date.getMinutes())}${date.getSeconds() ? `:${pad(date.getSeconds())}` : ""}`;
  return `${day}T${time}`;
}

/**
 * An instant given in a URL: an ISO 8601 date and time with its zone, or one without (read
 * in the browser's time zone, see {@link fromLocalInput}).
 * @returns it as a UTC ISO 8601 string, or null when it is not one.
 */
export function parseInstant(text: string): string | null {
  const value = text.trim();
  if (ZONED.test(value)) {
    const t = Date.parse(value);
    return Number.isNaN(t) ? null : new Date(t).toISOString();
  }
  return fromLocalInput(value);
}

/** The browser's time zone, as the IANA names it ("Europe/Berlin"), or "UTC" when it names none. */
export function browserTimeZone(): string {
  return new Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/** An event's time with seconds and its time zone ("24 Nov 2026, 23:41:07 UTC"); the browser's locale and zone by default. */
export function eventTimeFormat(locale?: string, timeZone?: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat(locale, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    timeZoneName: "short",
    ...(timeZone ? { timeZone } : {}),
  });
}

/* Details */

/** An event's details: its JSON object, or {} when the text is not one. */
export function readDetails(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The members of a refusal's details the audit page and the CSV export show in columns of their own. */
export interface Refusal {
  /** The RFC error code ("invalid_client"). */
  reason?: string;
  /** The error description the caller got. */
  description?: string;
  requestId?: string;
  interactionId?: string;
}

/** The members the audit page's table shows in columns of their own (the interaction id is left with the other details). */
const SHOWN_APART = ["reason", "description", "request_id", "request_ids", "interaction_ids"];

const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined);

/** The reason, description, request id and interaction id of an event's details, those present. */
export function refusalOf(details: Record<string, unknown>): Refusal {
  const refusal: Refusal = {};
  const reason = text(details.reason);
  const description = text(details.description);
  const requestId = text(details.request_id);
  const interactionId = text(details.interaction_id);
  if (reason) refusal.reason = reason;
  if (description) refusal.description = description;
  if (requestId) refusal.requestId = requestId;
  if (interactionId) refusal.interactionId = interactionId;
  return refusal;
}

/** The request and interaction ids a grouped refusal keeps (up to 20 of each, in pairs); [] for any other event. */
export function requestsOf(details: Record<string, unknown>): Array<{ requestId: string; interactionId: string }> {
  const requestIds = Array.isArray(details.request_ids) ? details.request_ids : [];
  const interactionIds = Array.isArray(details.interaction_ids) ? details.interaction_ids : [];
  return requestIds.map((r, i) => ({ requestId: typeof r === "string" ? r : "", interactionId: typeof interactionIds[i] === "string" ? (interactionIds[i] as string) : "" }));
}

/** The audit filter finding the events of request `id` whose event has `details`: by its interaction id when `id` is one of the event's, else by its request id. */
export function requestFilter(details: Record<string, unknown>, id: string): Pick<AuditFilter, "interactionId"> | Pick<AuditFilter, "requestId"> {
  const interactionIds = [refusalOf(details).interactionId, ...requestsOf(details).map((r) => r.interactionId)];
  return interactionIds.includes(id) ? { interactionId: id } : { requestId: id };
}

/** "1 account", "2 accounts". */
const accounts = (n: number) => `${n} ${n === 1 ? "account" : "accounts"}`;

/**
 * A PSD2 consent in a few words, for the audit log: "account access, 2 accounts", "account
 * access, all accounts", "payment €12.50 to Anna Schmidt", "3 payments"; the kind alone when
 * its details cannot be read.
 */
export function consentSummary(consent: Pick<Psd2Consent, "kind" | "authorizationDetails">, locale: string): string {
  const fallback = consent.kind === "payment_initiation" ? "payment" : "account access";
  const details = readAuthorizationDetails(consent.authorizationDetails);
  if (!details) return fallback;
  const payments = details.filter(isPayment);
  if (payments.length > 1) return `${payments.length} payments`;
  const [payment] = payments;
  if (payment) {
    try {
      return `payment ${formatAmount(payment.instructedAmount, locale)} to ${payment.creditorName}`;
    } catch {
      return `payment to ${payment.creditorName}`;
    }
  }
  const access = details.find(isAccountAccess)?.access;
  if (access?.allAccounts) return "account access, all accounts";
  return access?.accounts?.length ? `account access, ${accounts(access.accounts.length)}` : fallback;
}

/**
 * The other members of an event's details, as "name: value" lines (a value that is not a
 * string as JSON), each cut to `max` characters with "…".
 */
export function otherDetails(details: Record<string, unknown>, max = 200): string[] {
  return Object.entries(details)
    .filter(([key, value]) => !SHOWN_APART.includes(key) && value !== undefined && value !== null && value !== "")
    .map(([key, value]) => {
      const shown = typeof value === "string" ? value : JSON.stringify(value);
      return `${key}: ${shown.length > max ? `${shown.slice(0, max - 1)}…` : shown}`;
    });
}

/* Export */

/** The most events one export holds. */
export const EXPORT_LIMIT = 10_000;

/**
 * Every event of a paginated list, up to `limit`: calls `fetchPage` with the cursor of the
 * previous page (null first) and how many to ask for (at most `pageSize`), until the last page
 * or the limit.
 * @param onProgress - told how many events are in so far, after each page.
 * @returns the events, and whether there were more than `limit` (capped).
 */
export async function fetchAll<T>(
  fetchPage: (after: string | null, first: number) => Promise<{ nodes: T[]; pageInfo: PageInfo }>,
  { limit = EXPORT_LIMIT, pageSize, onProgress }: { limit?: number; pageSize: number; onProgress?: (count: number) => void },
): Promise<{ rows: T[]; capped: boolean }> {
  const rows: T[] = [];
  let after: string | null = null;
  for (;;) {
    const page: { nodes: T[]; pageInfo: PageInfo } = await fetchPage(after, Math.min(pageSize, limit - rows.length));
    rows.push(...page.nodes.slice(0, limit - rows.length));
    onProgress?.(rows.length);
    const more = page.pageInfo.hasNextPage && page.pageInfo.endCursor !== null && page.nodes.length > 0;
    if (!more) return { rows, capped: false };
    if (rows.length >= limit) return { rows, capped: true };
    after = page.pageInfo.endCursor;
  }
}

/** The CSV columns of an event, in order. */
export const CSV_HEADER = ["at", "type", "actor", "subject", "count", "reason", "description", "request_id", "interaction_id", "details"] as const;

/** First characters that make a spreadsheet read a cell as a formula (OWASP "CSV injection"), tab and carriage return included. */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV field (RFC 4180): a value a spreadsheet would run as a formula (starting with =,
 * +, -, @, tab or carriage return) gets a leading ', and a value with a quote, comma or line
 * break is quoted, its quotes doubled.
 */
export function csvField(value: string | number): string {
  let text = String(value);
  if (typeof value === "string" && FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The events as CSV (RFC 4180: a header line, CRLF line ends); times in UTC ISO 8601, the details as their JSON. */
export function toCsv(events: readonly AuditEvent[]): string {
  const lines = [CSV_HEADER.join(",")];
  for (const e of events) {
    const r = refusalOf(readDetails(e.details));
    const row: Array<string | number> = [e.at, e.type, e.actor, e.subject, e.count, r.reason ?? "", r.description ?? "", r.requestId ?? "", r.interactionId ?? "", e.details];
    lines.push(row.map(csvField).join(","));
  }
  return `${lines.join("\r\n")}\r\n`;
}

/** The events as a JSON document: when, with which filter, whether capped, then the events with their details as objects. */
export function toJson(events: readonly AuditEvent[], meta: { filter: AuditFilter; capped: boolean; exportedAt: Date }): string {
  return `${JSON.stringify(
    {
      exportedAt: meta.exportedAt.toISOString(),
      filter: filterQuery(meta.filter),
      capped: meta.capped,
      limit: EXPORT_LIMIT,
      count: events.length,
      events: events.map((e) => ({ id: e.id, at: e.at, type: e.type, actor: e.actor, subject: e.subject, count: e.count, details: readDetails(e.details) })),
    },
    null,
    2,
  )}\n`;
}

/** The name of an export file: "tollgate-audit-2026-11-24T23-41-07Z.csv" (the time of the export, UTC). */
export function exportFileName(extension: "csv" | "json", now: Date): string {
  return `tollgate-audit-${now.toISOString().slice(0, 19).replace(/:/g, "-")}Z.${extension}`;
}

/** Has the browser save `content` as a file named `name`: a Blob behind an object URL, freed a minute later (once the download has surely read it). */
export function downloadFile(name: string, type: string, content: string): void {
  const url = URL.createObjectURL(new Blob([content], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
