/**
 * Cursor pagination over rows with string ids (cuid, which sort by creation time).
 */

export interface Page<T> {
  nodes: T[];
  pageInfo: { endCursor: string | null; hasNextPage: boolean };
}

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
 */
export async function paginate<T extends { id: string }>(
  fetch: (args: PageArgs) => Promise<T[]>,
  first: number,
  after: string | null | undefined,
  order: "asc" | "desc" = "asc",
): Promise<Page<T>> {
  const rows = await fetch({ take: first + 1, ...(after ? { cursor: { id: after }, skip: 1 } : {}), orderBy: { id: order } });
  const nodes = rows.slice(0, first);
  return { nodes, pageInfo: { hasNextPage: rows.length > first, endCursor: nodes.at(-1)?.id ?? null } };
}
