import { eventTimeFormat } from "../lib/audit";

/** The browser's locale and time zone, with seconds and the zone's name. */
const format = eventTimeFormat();

/**
 * An ISO 8601 instant to the second, naming the time zone ("24 Nov 2026, 23:41:07 CET"), in
 * the browser's locale and zone: for times an operator compares with logs and audit events.
 */
export function ExactTime({ value }: { value: string | null | undefined }) {
  if (!value) return <span className="muted">—</span>;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return <span>{value}</span>;
  return <time dateTime={date.toISOString()}>{format.format(date)}</time>;
}
