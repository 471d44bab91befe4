import { DataTable, type DataTableProps } from "./DataTable";
import { LoadState } from "./LoadState";

/** A list loaded from the server, as {@link ListTable} shows it (a `useConnection` result is one). */
export interface RowSource<Row> {
  nodes: readonly Row[];
  /** The rows are being loaded (the first time, or again). */
  loading: boolean;
  error: string | null;
  /** Loads the rows again ("Try again" after an error). */
  reload?: () => void;
}

/**
 * A {@link DataTable} of rows loaded from the server: "Loading…" or the error (with "Try
 * again") until the first rows arrive, then the table, or its `empty` text.
 */
export function ListTable<Row>({ list, ...table }: Omit<DataTableProps<Row>, "rows" | "busy"> & { list: RowSource<Row> }) {
  return (
    <LoadState loading={list.loading} error={list.error} isEmpty={list.nodes.length === 0} onRetry={list.reload}>
      <DataTable {...table} rows={list.nodes} busy={list.loading} />
    </LoadState>
  );
}

/** "Load more" under a paginated list, and a live region saying when more are loading. */
export function LoadMore({ list, what }: { list: { hasNextPage: boolean; loadingMore: boolean; loadMore: () => void }; what: string }) {
  return (
    <>
      {list.hasNextPage && (
        <div className="load-more">
          <button type="button" className="button secondary" disabled={list.loadingMore} aria-busy={list.loadingMore || undefined} onClick={list.loadMore}>
            Load more<span className="visually-hidden"> {what}</span>
          </button>
        </div>
      )}
      <p role="status" className="status">
        {list.loadingMore ? `Loading more ${what}…` : ""}
      </p>
    </>
  );
}
