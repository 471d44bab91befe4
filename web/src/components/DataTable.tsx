import { useId, type ReactNode } from "react";

/** One column of a {@link DataTable}. */
export interface Column<Row> {
  /** The header cell's content. A string header also serves as the column's React key. */
  header: ReactNode;
  /** The column's cell for one row. */
  cell: (row: Row) => ReactNode;
  /** The column's React key, for a header that is not a string. */
  key?: string;
  /** Class of the column's body cells ("num", "cell-actions"). */
  className?: string;
  /** The column names its row: its cells are row headers (`<th scope="row">`). */
  rowHeader?: boolean;
}

/** What a {@link DataTable} shows: its caption, columns and rows, and its empty state. */
export interface DataTableProps<Row> {
  /** The table's name for assistive technology (a visually hidden `<caption>`): each table sits under a visible heading. */
  caption: string;
  columns: ReadonlyArray<Column<Row>>;
  rows: readonly Row[];
  rowKey: (row: Row) => string | number;
  /** Shown instead of the table when there are no rows. */
  empty: ReactNode;
  /** Rows to highlight as the current one (`aria-current`). */
  isCurrent?: (row: Row) => boolean;
  /** The rows are being loaded again (`aria-busy`). */
  busy?: boolean;
  /** Tighter cells, for tables of figures. */
  compact?: boolean;
}

function columnKey<Row>(column: Column<Row>, index: number): string {
  return column.key ?? (typeof column.header === "string" ? column.header : String(index));
}

/**
 * The SPA's one table: a header row of `<th scope="col">`, then one row per item with the
 * columns' cells, or the `empty` text when there are no rows. A table wider than the page
 * scrolls sideways in its wrapper, which keyboard users can focus to scroll it.
 */
export function DataTable<Row>({ caption, columns, rows, rowKey, empty, isCurrent, busy = false, compact = false }: DataTableProps<Row>) {
  const captionId = useId();
  if (rows.length === 0) return <p className="empty">{empty}</p>;
  return (
    <div className="table-wrap" role="group" aria-labelledby={captionId} tabIndex={0}>
      <table className={compact ? "table compact" : "table"} aria-busy={busy || undefined}>
        <caption id={captionId} className="visually-hidden">
          {caption}
        </caption>
        <thead>
          <tr>
            {columns.map((column, i) => (
              <th scope="col" key={columnKey(column, i)}>
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const current = isCurrent?.(row) ?? false;
            return (
              <tr key={rowKey(row)} className={current ? "selected" : undefined} aria-current={current || undefined}>
                {columns.map((column, i) => {
                  const Cell = column.rowHeader ? "th" : "td";
                  return (
                    <Cell key={columnKey(column, i)} scope={column.rowHeader ? "row" : undefined} className={column.className}>
                      {column.cell(row)}
                    </Cell>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** The last column of a table with buttons in its rows, headed "Actions" for screen readers only. */
export function actionsColumn<Row>(cell: (row: Row) => ReactNode): Column<Row> {
  return { key: "actions", header: <span className="visually-hidden">Actions</span>, className: "cell-actions", cell };
}
