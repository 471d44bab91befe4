/**
 * Erasure of a developer's or an organization's personal data (GDPR Art. 17) from the audit
 * log: the events themselves are kept (Art. 17(3)(b), the bank's record-keeping duties), with
 * the names and email addresses in their details replaced by a stable pseudonym. Types, times,
 * actors, subjects and ids stay as they were. See docs/operations.md, "Deleting apps, erasing
 * developers and organizations".
 */
import { createHash } from "node:crypto";
import type { Stores } from "../../stores/index.js";

/** Whose data is erased. */
export type ErasedKind = "developer" | "organization";

/**
 * The pseudonym of an erased developer or organization: `erased-<kind>-<12 hex digits>`, the
 * start of SHA-256 of `<kind>:<id>`. Stable (every event gets the same one) and derived from
 * the id only, which the events keep anyway: it links nothing they did not link.
 */
export function pseudonym(kind: ErasedKind, id: string): string {
  return `erased-${kind}-${createHash("sha256").update(`${kind}:${id}`).digest("hex").slice(0, 12)}`;
}

/** The personal values to replace: whole strings equal to a name, and email addresses wherever they occur. */
export interface PersonalData {
  names: string[];
  emails: string[];
}

/** The fields of admin mutation arguments that hold a developer's or organization's personal data. */
const PERSONAL_FIELDS: Record<ErasedKind, { names: string[]; emails: string[] }> = {
  developer: { names: ["firstName", "lastName"], emails: ["email"] },
  organization: { names: ["name", "displayName"], emails: [] },
};

/** `value` with every string scrubbed: equal to a name (case-insensitively), or containing an email, replaced. */
export function scrub(value: unknown, data: PersonalData, replacement: string): unknown {
  if (typeof value === "string") {
    const lower = value.toLowerCase();
    if (data.names.some((n) => n.toLowerCase() === lower)) return replacement;
    return data.emails.reduce((text, email) => text.split(new RegExp(escapeRegExp(email), "gi")).join(replacement), value);
  }
  if (Array.isArray(value)) return value.map((v) => scrub(v, data, replacement));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrub(v, data, replacement)]));
  return value;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The values `fields` hold in an event's `args.input`, or `args` itself. */
function harvested(details: string, fields: string[]): string[] {
  const args = (JSON.parse(details) as { args?: Record<string, unknown> & { input?: Record<string, unknown> } }).args;
  const sources = [args, args?.input].filter((s): s is Record<string, unknown> => s != null && typeof s === "object");
  return sources.flatMap((s) => fields.map((f) => s[f])).filter((v): v is string => typeof v === "string" && v.trim() !== "");
}

/**
 * Pseudonymizes the audit events that name a developer or organization, inside the caller's
 * transaction: the events about `id` (its creation and changes, whose arguments also give its
 * earlier names and emails) and those whose details carry one of its emails or, for an
 * organization, one of its names.
 * @param current - its names and emails as stored now.
 * @returns how many events were rewritten.
 */
export async function pseudonymizeAudit(stores: Pick<Stores, "audit">, kind: ErasedKind, id: string, current: PersonalData): Promise<number> {
  const fields = PERSONAL_FIELDS[kind];
  const about = await stores.audit.mentioning({ subject: id, texts: [] });
  const data: PersonalData = {
    names: unique([...current.names, ...about.flatMap((e) => harvested(e.details, fields.names))]),
    emails: unique([...current.emails, ...about.flatMap((e) => harvested(e.details, fields.emails))]),
  };
  if (kind === "developer") {
    const full = `${current.names[0] ?? ""} ${current.names[1] ?? ""}`.trim();
    if (full.includes(" ")) data.names.push(full);
  }
  // A developer's events carry their id or email (a first name alone would find other people's events);
  // an organization's are found by its names too (as whole JSON strings), e.g. in a deleted app's event.
  const names = kind === "organization" ? data.names.map((n) => JSON.stringify(n)) : [];
  const texts = [...names, ...data.emails.map((e) => JSON.stringify(e).slice(1, -1))];
  const replacement = pseudonym(kind, id);
  let rewritten = 0;
  for (const event of await stores.audit.mentioning({ subject: id, texts })) {
    const details = JSON.stringify(scrub(JSON.parse(event.details), data, replacement));
    if (details === event.details) continue;
    await stores.audit.setDetails(event.id, details);
    rewritten++;
  }
  return rewritten;
}

function unique(values: string[]): string[] {
  return [...new Set(values.filter((v) => v.trim() !== ""))];
}
