import type { DataTableProps } from "./DataTable";
import { ListTable, LoadMore, type RowSource } from "./ListTable";

/** A paginated list loaded from the server (a `useConnection` result is one). */
export interface PagedRowSource<Row> extends RowSource<Row> {
  hasNextPage: boolean;
  loadingMore: boolean;
  loadMore: () => void;
}

/**
 * A {@link ListTable} of a paginated list with its {@link LoadMore} under it ("Load more
 * <what>", by default the caption in lower case). Rows are keyed by their `id` unless
 * `rowKey` says otherwise.
 */
export function PagedListTable<Row extends { id: string }>({
  list,
  what,
  rowKey = (row) => row.id,
  ...table
}: Omit<DataTableProps<Row>, "rows" | "busy" | "rowKey"> & { list: PagedRowSource<Row>; what?: string; rowKey?: (row: Row) => string | number }) {
  return (
    <>
      <ListTable {...table} list={list} rowKey={rowKey} />
      <LoadMore list={list} what={what ?? table.caption.toLowerCase()} />
    </>
  );
}
