/**
 * The scopes of an API product form with their descriptions for end users (issue 19): every
 * scope needs one, since the consent and Account pages show it instead of the scope's code.
 * A scope another product already has comes with its stored description; a new one must be
 * described before the form is sent. A description belongs to the scope, not the product:
 * changing it changes it for every product with the scope.
 */
import type { Scope } from "../api/admin";

/** One scope of the form. */
export interface ScopeRow {
  name: string;
  /** The description as the form shows it: typed, else stored, else "". */
  description: string;
  /** The stored description; "" for a new scope. */
  stored: string;
  /** No product has the scope yet. */
  isNew: boolean;
}

/** The stored descriptions by scope name (the `scopes` query's answer). */
export function storedDescriptions(scopes: readonly Scope[]): Map<string, string> {
  return new Map(scopes.map((s) => [s.name, s.description]));
}

/**
 * The form's scope rows, in the order of `scopes`.
 * @param typed - descriptions typed in the form, by scope name (those of scopes no longer listed are ignored).
 */
export function scopeRows(scopes: readonly string[], stored: ReadonlyMap<string, string>, typed: ReadonlyMap<string, string>): ScopeRow[] {
  return scopes.map((name) => {
    const saved = stored.get(name);
    return { name, description: typed.get(name) ?? saved ?? "", stored: saved ?? "", isNew: saved === undefined };
  });
}

/** The scopes left without a description (blank), which the form refuses to send. */
export function undescribedScopes(rows: readonly ScopeRow[]): string[] {
  return rows.filter((r) => r.description.trim() === "").map((r) => r.name);
}

/** What the form says when scopes lack a description (`names` not empty). */
export function missingDescriptionsMessage(names: readonly string[]): string {
  const quoted = names.map((n) => `“${n}”`);
  const list = quoted.length === 1 ? quoted[0]! : `${quoted.slice(0, -1).join(", ")} and ${quoted.at(-1)!}`;
  return `Describe ${names.length === 1 ? "the scope" : "the scopes"} ${list} for end users: they see the description on the consent and Account pages, never the scope's code.`;
}

/** The `scopeDescriptions` to send: those of new scopes and those changed in the form, trimmed. */
export function scopeDescriptionsInput(rows: readonly ScopeRow[]): Scope[] {
  return rows.map((r) => ({ name: r.name, description: r.description.trim() })).filter((s, i) => s.description !== "" && s.description !== rows[i]!.stored);
}
