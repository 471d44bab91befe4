import { Fragment, useId, useLayoutEffect, useRef, useState, type ReactNode, type RefObject } from "react";

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
  /**
   * Not a column of its own: the field is shown in the row's details, which a disclosure
   * button at the start of the row opens. For the fields that neither identify the row nor
   * give its status, so that the table fits its frame.
   */
  detail?: boolean;
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

/** Whether the element's content reaches past its left and right edges (it scrolls sideways). */
interface Overflow {
  left: boolean;
  right: boolean;
}

/** Whether `ref`'s content overflows it on either side, kept up to date as it scrolls or resizes (while `shown`: the element is rendered). */
function useOverflow(ref: RefObject<HTMLElement | null>, shown: boolean): Overflow {
  const [overflow, setOverflow] = useState<Overflow>({ left: false, right: false });
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    const update = () => {
      // One pixel of slack: scroll positions are fractional on zoomed pages.
      const left = element.scrollLeft > 1;
      const right = element.scrollLeft + element.clientWidth < element.scrollWidth - 1;
      setOverflow((was) => (was.left === left && was.right === right ? was : { left, right }));
    };
    update();
    const observer = new ResizeObserver(update);
    observer.observe(element);
    if (element.firstElementChild) observer.observe(element.firstElementChild);
    element.addEventListener("scroll", update, { passive: true });
    return () => {
      observer.disconnect();
      element.removeEventListener("scroll", update);
    };
  }, [ref, shown]);
  return overflow;
}

/**
 * The SPA's one table: a header row of `<th scope="col">`, then one row per item with the
 * columns' cells, or the `empty` text when there are no rows. The `detail` columns are not
 * shown as columns: each row's actions cell starts with a "Details" disclosure button
 * (`aria-expanded`, named "Details <row name>") that shows them under the row as a
 * description list. A table wider than its frame scrolls sideways in
 * its wrapper (never the page), which keyboard users can focus to scroll it; a line above it
 * says so, and its actions column (`cell-actions`) stays in view at the right edge.
 */
export function DataTable<Row>({ caption, columns, rows, rowKey, empty, isCurrent, busy = false, compact = false }: DataTableProps<Row>) {
  const id = useId();
  const captionId = `${id}caption`;
  const wrapRef = useRef<HTMLDivElement>(null);
  const overflow = useOverflow(wrapRef, rows.length > 0);
  const [open, setOpen] = useState<ReadonlySet<string | number>>(new Set());
  const details = columns.filter((c) => c.detail);
  const expandable = details.length > 0;
  const shown = columns.filter((c) => !c.detail);
  // The disclosure buttons go in the actions column, which stays in view: a table without one gets one.
  if (expandable && !shown.some(isActions)) shown.push(actionsColumn(() => null));
  const named = shown.some((c) => c.rowHeader);
  if (rows.length === 0) return <p className="empty">{empty}</p>;

  function toggle(key: string | number) {
    setOpen((was) => {
      const next = new Set(was);
      if (!next.delete(key)) next.add(key);
      return next;
    });
  }

  return (
    <>
      {(overflow.left || overflow.right) && (
        <p className="table-hint small muted">
          <span aria-hidden="true">⇆ </span>Scroll the table sideways to see all its columns.
        </p>
      )}
      <div
        ref={wrapRef}
        className="table-wrap"
        role="group"
        aria-labelledby={captionId}
        tabIndex={0}
        data-more-left={overflow.left || undefined}
        data-more-right={overflow.right || undefined}
      >
        <table className={compact ? "table compact" : "table"} aria-busy={busy || undefined}>
          <caption id={captionId} className="visually-hidden">
            {caption}
          </caption>
          <thead>
            <tr>
              {shown.map((column, i) => (
                <th scope="col" key={columnKey(column, i)} className={column.className}>
                  {column.header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => {
              const key = rowKey(row);
              const current = isCurrent?.(row) ?? false;
              const expanded = expandable && open.has(key);
              // Ids by the row's key, not its place, which a reload can change.
              const rowId = `${id}row-${String(key).replace(/\s/g, "_")}-`;
              return (
                <Fragment key={key}>
                  <tr className={current ? "selected" : undefined} aria-current={current || undefined}>
                    {shown.map((column, i) => {
                      const Cell = column.rowHeader ? "th" : "td";
                      return (
                        <Cell
                          key={columnKey(column, i)}
                          id={column.rowHeader ? `${rowId}name` : undefined}
                          scope={column.rowHeader ? "row" : undefined}
                          className={column.className}
                        >
                          {isActions(column) ? (
                            <div className="row-actions">
                              {expandable && (
                                <button
                              type="button"
                              className="button secondary small disclosure"
                              id={`${rowId}toggle`}
                              aria-expanded={expanded}
                              aria-controls={expanded ? `${rowId}details` : undefined}
                              aria-labelledby={named ? `${rowId}toggle ${rowId}name` : undefined}
                              onClick={() => toggle(key)}
                            >
                              Details{!named && <span className="visually-hidden"> of row {index + 1}</span>}
                                </button>
                              )}
                              {column.cell(row)}
                            </div>
                          ) : (
                            column.cell(row)
                          )}
                        </Cell>
                      );
                    })}
                  </tr>
                  {expanded && (
                    <tr id={`${rowId}details`} className={current ? "row-details selected" : "row-details"}>
                      <td colSpan={shown.length}>
                        <dl className="row-fields">
                          {details.map((column, i) => (
                            <div key={columnKey(column, i)}>
                              <dt>{column.header}</dt>
                              <dd>{column.cell(row)}</dd>
                            </div>
                          ))}
                        </dl>
                      </td>
                    </tr>
                  )}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}

const ACTIONS = "actions";

/** Whether the column is a table's actions column ({@link actionsColumn}). */
const isActions = <Row,>(column: Column<Row>) => column.key === ACTIONS;

/** The last column of a table with buttons in its rows, headed "Actions" for screen readers only; it stays in view at the table's right edge. */
export function actionsColumn<Row>(cell: (row: Row) => ReactNode): Column<Row> {
  return { key: ACTIONS, header: <span className="visually-hidden">Actions</span>, className: "cell-actions", cell };
}
