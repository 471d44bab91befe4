/**
 * Cursor pagination over rows with string ids (cuid-shaped, which sort by creation time),
 * and substring search, for the stores' admin lists.
 */
import type { Page, PageRequest } from "../stores/page.js";
import type { Provider } from "./migrate.js";

/** The Prisma findMany arguments for one page. */
export interface PageArgs {
  take: number;
  skip?: number;
  cursor?: { id: string };
  orderBy: { id: "asc" | "desc" };
}

/**
 * Fetches `first` rows after the row with id `after`, plus one to learn whether more follow.
 * @param order - "asc" oldest first (default), "desc" newest first.
 * @param keep - a re-check of each fetched row (see {@link substringSearch}); a page may
 *   then hold fewer than `first` nodes, and the cursor still moves past every fetched row.
 */
export async function paginate<T extends { id: string }>(
  fetch: (args: PageArgs) => Promise<T[]>,
  { first, after }: PageRequest,
  order: "asc" | "desc" = "asc",
  keep: (row: T) => boolean = () => true,
): Promise<Page<T>> {
  const rows = await fetch({ take: first + 1, ...(after ? { cursor: { id: after }, skip: 1 } : {}), orderBy: { id: order } });
  const page = rows.slice(0, first);
  return { nodes: page.filter(keep), pageInfo: { hasNextPage: rows.length > first, endCursor: page.at(-1)?.id ?? null } };
}

/**
 * A case-insensitive substring search on a text column. Prisma's `contains` hands `%` and
 * `_` to SQL LIKE as wildcards, so it can only narrow the rows; `matches` re-checks the
 * literal substring. SQLite's LIKE ignores ASCII case already; PostgreSQL needs ILIKE.
 */
export function substringSearch(provider: Provider, raw: string) {
  const search = raw.toWellFormed().replace(/\0/g, "");
  const needle = search.toLowerCase();
  const where = provider === "postgresql" ? { contains: search, mode: "insensitive" as const } : { contains: search };
  return { where, matches: (value: string) => value.toLowerCase().includes(needle) };
}
