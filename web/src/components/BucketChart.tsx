import { Link, useNavigate } from "react-router";
import { Bar, BarChart, CartesianGrid, Legend, Tooltip, XAxis, YAxis } from "recharts";
import type { Bucket, BucketFormat, Series } from "../lib/dashboard";
import { DataTable, type Column } from "./DataTable";

/** Series colours: the --chart-N properties of styles.css, each 3:1 or more on the light and the dark card (WCAG 1.4.11). */
const PALETTE = Array.from({ length: 9 }, (_, i) => `var(--chart-${i + 1})`);

/** A series of a chart, with its colour (else the next of the palette). */
export interface ChartSeries extends Series {
  color?: string;
}

/**
 * A stacked bar chart of counts per time bucket, its axes titled, with its data as a table for
 * screen readers and keyboard users.
 * @param yTitle - what is counted ("Calls"), the title of the vertical axis.
 * @param bucketLink - the page listing what was counted in a bucket (of one series, when a bar
 *   of it is clicked): each row of the table links to it (`linkText`), and clicking a bar opens it.
 */
export function BucketChart({
  rows,
  series,
  label,
  yTitle,
  format,
  bucketLink,
  linkText = "Audit events",
}: {
  rows: Bucket[];
  series: ChartSeries[];
  label: string;
  yTitle: string;
  format: BucketFormat;
  bucketLink?: (start: number, series?: string) => string;
  linkText?: string;
}) {
  const navigate = useNavigate();
  const columns: Column<Bucket>[] = [
    { header: "Time", rowHeader: true, cell: (r) => format.label(r.start) },
    ...series.map((s) => ({ key: `series:${s.key}`, header: s.name, className: "num", cell: (r: Bucket) => r.counts[s.key] ?? 0 })),
    ...(series.length > 1 ? [{ header: "Total", className: "num", cell: (r: Bucket) => r.total }] : []),
    ...(bucketLink
      ? [
          {
            header: "Audit log",
            cell: (r: Bucket) => (
              <Link to={bucketLink(r.start)}>
                {linkText}
                <span className="visually-hidden"> of {format.label(r.start)}</span>
              </Link>
            ),
          },
        ]
      : []),
  ];
  /** A click on a bar opens its bucket's page (a pointer shortcut: the table's links are the keyboard's way). */
  const onBarClick = (key: string) => (bar: { payload?: unknown }) => {
    const row = bar.payload as Bucket | undefined;
    if (bucketLink && row && typeof row.start === "number") void navigate(bucketLink(row.start, key));
  };
  return (
    <figure className="chart" aria-label={label}>
      <div className="chart-canvas">
        <BarChart responsive data={rows} margin={{ top: 8, right: 8, bottom: 16, left: 8 }} title={label}>
          <CartesianGrid vertical={false} strokeDasharray="3 3" />
          <XAxis dataKey="start" tickFormatter={format.tick} minTickGap={16} label={{ value: "Time", position: "insideBottom", offset: -12 }} />
          <YAxis allowDecimals={false} width={56} label={{ value: yTitle, angle: -90, position: "insideLeft", style: { textAnchor: "middle" } }} />
          <Tooltip
            labelFormatter={(start) => format.label(Number(start))}
            contentStyle={{ background: "var(--card)", border: "1px solid var(--border)", borderRadius: 6, color: "var(--text)" }}
            cursor={{ fill: "var(--cursor)" }}
          />
          {series.length > 1 && <Legend verticalAlign="top" wrapperStyle={{ paddingBottom: 8 }} />}
          {series.map((s, i) => (
            <Bar
              key={s.key}
              // null (not 0) for a series without counts in a bucket, so that the tooltip leaves it out.
              dataKey={(row: Bucket) => row.counts[s.key] ?? null}
              name={s.name}
              stackId="bucket"
              fill={s.color ?? PALETTE[i % PALETTE.length]}
              isAnimationActive={false}
              {...(bucketLink ? { onClick: onBarClick(s.key), cursor: "pointer" } : {})}
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
            rowKey={(r) => r.start}
            empty="Nothing was counted in this range."
            compact
          />
        </details>
      </figcaption>
    </figure>
  );
}
