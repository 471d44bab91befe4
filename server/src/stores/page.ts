/**
 * One page of a list, with the cursor of its last row (ids sort by creation time).
 */
export interface Page<T> {
  nodes: T[];
  pageInfo: { endCursor: string | null; hasNextPage: boolean };
}

/** Which page: at most `first` rows after the row with id `after` (none: from the start). */
export interface PageRequest {
  first: number;
  after?: string | null;
}
