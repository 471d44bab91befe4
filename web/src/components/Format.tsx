import type { ReactNode } from "react";

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
/** The same, naming the time zone ("24 Nov 2026, 10:05 CET"): dateStyle cannot be combined with timeZoneName. */
const zonedDateTime = new Intl.DateTimeFormat(undefined, {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "numeric",
  minute: "2-digit",
  timeZoneName: "short",
});

/** An ISO 8601 time, in the browser's locale and time zone; `zone` names the time zone. */
export function DateTime({ value, zone = false }: { value: string | null | undefined; zone?: boolean }) {
  if (!value) return <span className="muted">—</span>;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return <span>{value}</span>;
  return <time dateTime={date.toISOString()}>{(zone ? zonedDateTime : dateTime).format(date)}</time>;
}

/** The colour of a badge: good, needs attention, bad, or neither. */
export type Tone = "ok" | "warn" | "bad" | "neutral";

const TONES: Record<string, Tone> = {
  approved: "ok",
  active: "ok",
  pending: "warn",
  revoked: "bad",
  disabled: "bad",
  expired: "bad",
};

/** A status word (approved, revoked, pending, active, disabled) as a coloured badge; `tone` sets the colour of other words. */
export function Badge({ children, tone }: { children: string; tone?: Tone }) {
  return <span className={`badge ${tone ?? TONES[children] ?? "neutral"}`}>{children}</span>;
}

/** Scope or product names as a list of code chips. */
export function Chips({ items, empty = "none" }: { items: readonly string[]; empty?: ReactNode }) {
  if (items.length === 0) return <span className="muted">{empty}</span>;
  return (
    <ul className="chips">
      {items.map((item, i) => (
        <li key={`${i}:${item}`}>
          <code>{item}</code>
        </li>
      ))}
    </ul>
  );
}

/** Units of durations, largest first: size in seconds, symbol, name. */
const UNITS = [
  [86400, "d", "day"],
  [3600, "h", "hour"],
  [60, "min", "minute"],
] as const;

/** The largest unit a positive number of seconds is a whole number of. */
const unitOf = (seconds: number) => UNITS.find(([size]) => seconds >= size && seconds % size === 0);

/** A duration in seconds, with its largest whole unit ("3600 s (1 h)"). */
export function Seconds({ value }: { value: number }) {
  const unit = unitOf(value);
  return (
    <span>
      {value} s{unit ? ` (${value / unit[0]} ${unit[1]})` : ""}
    </span>
  );
}

/** A duration in words, in its largest whole unit ("400 days", "1 hour"), else in seconds. */
export function durationText(seconds: number): string {
  const unit = unitOf(seconds);
  const [count, name] = unit ? [seconds / unit[0], unit[2]] : [seconds, "second"];
  return `${count} ${name}${count === 1 ? "" : "s"}`;
}

/** Words from a comma- or whitespace-separated input ("aisp, pisp" or "aisp pisp"), deduplicated. */
export function splitList(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter((s) => s !== ""))];
}

/** Lines of a textarea, trimmed, without blanks or duplicates. */
export function splitLines(text: string): string[] {
  return [...new Set(text.split(/\r?\n/).map((s) => s.trim()).filter((s) => s !== ""))];
}
