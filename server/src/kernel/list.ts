/**
 * The list codec: scope and product names are stored, and answered, as one space-separated string.
 */

/** Splits a stored space-separated list (scopes, product names) into its items. */
export function splitList(value: string): string[] {
  return value === "" ? [] : value.split(" ");
}

/** Joins names into the space-separated form used in responses and storage. */
export function joinList(names: readonly string[]): string {
  return names.join(" ");
}
