import { Link, useNavigate } from "react-router";
import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from "recharts";
import { formatDayHour, formatHour, type HourRow } from "../lib/dashboard";
import { DataTable, type Column } from "./DataTable";

/** Series colours, readable on the light and the dark card. */
const PALETTE = ["#2563eb", "#059669", "#d97706", "#7c3aed", "#db2777", "#0891b2", "#65a30d", "#dc2626", "#4b5563"];

export interface Series {
  key: string;
  name: string;
  color?: string;
}

/**
 * A stacked bar chart of counts per hour, with its data as a table for screen readers and keyboard users.
 * @param hourLink - the page listing what was counted in an hour: each row of the table links to it,
 *   and clicking a bar opens it.
 */
export function HourlyChart({ rows, series, label, hourLink }: { rows: HourRow[]; series: Series[]; label: string; hourLink?: (hour: number) => string }) {
  const navigate = useNavigate();
  const columns: Column<HourRow>[] = [
    { header: "Hour", rowHeader: true, cell: (r) => formatDayHour(r.hour) },
    ...series.map((s) => ({ key: `series:${s.key}`, header: s.name, className: "num", cell: (r: HourRow) => r.counts[s.key] ?? 0 })),
    ...(series.length > 1 ? [{ header: "Total", className: "num", cell: (r: HourRow) => r.total }] : []),
    ...(hourLink
      ? [
          {
            header: "Audit log",
            cell: (r: HourRow) => (
              <Link to={hourLink(r.hour)}>
                Events<span className="visually-hidden"> of {formatDayHour(r.hour)}</span>
              </Link>
            ),
          },
        ]
      : []),
  ];
  /** A click on a bar opens its hour's page (a pointer shortcut: the table's links are the keyboard's way). */
  const onBarClick = hourLink
    ? (bar: { payload?: unknown }) => {
        const row = bar.payload as HourRow | undefined;
        if (row && typeof row.hour === "number") void navigate(hourLink(row.hour));
      }
    : undefined;
  return (
    <figure className="chart">
      <div className="chart-canvas">
        <BarChart responsive data={rows} margin={{ top: 8, right: 8, bottom: 0, left: 0 }} title={label}>
          <CartesianGrid vertical={false} strokeDasharray="3 3" />
          <XAxis dataKey="hour" tickFormatter={formatHour} minTickGap={16} />
          <YAxis allowDecimals={false} width={40} />
          <Tooltip
            labelFormatter={(hour) => formatDayHour(Number(hour))}
            contentStyle={{ background: "var(--card)", border: "1px solid var(--border)", borderRadius: 6, color: "var(--text)" }}
            cursor={{ fill: "var(--cursor)" }}
          />
          {series.length > 1 && <Legend />}
          {series.map((s, i) => (
            <Bar
              key={s.key}
              // null (not 0) for an app without tokens that hour, so that the tooltip leaves it out.
              dataKey={(row: HourRow) => row.counts[s.key] ?? null}
              name={s.name}
              stackId="hour"
              fill={s.color ?? PALETTE[i % PALETTE.length]}
              isAnimationActive={false}
              {...(onBarClick ? { onClick: onBarClick, cursor: "pointer" } : {})}
            />
          ))}
        </BarChart>
      </div>
      <figcaption>
        <details className="chart-data">
          <summary>Show the data as a table</summary>
          <DataTable
            caption={label}
            columns={columns}
            rows={rows.filter((r) => r.total > 0)}
            rowKey={(r) => r.hour}
            empty="Nothing was counted in these hours."
            compact
          />
        </details>
      </figcaption>
    </figure>
  );
}
