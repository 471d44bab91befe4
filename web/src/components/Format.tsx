import type { ReactNode } from "react";

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** An ISO 8601 time, in the browser's locale and time zone. */
export function DateTime({ value }: { value: string | null | undefined }) {
  if (!value) return <span className="muted">—</span>;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return <span>{value}</span>;
  return <time dateTime={date.toISOString()}>{dateTime.format(date)}</time>;
}

const TONES: Record<string, "ok" | "warn" | "bad"> = {
  approved: "ok",
  active: "ok",
  pending: "warn",
  revoked: "bad",
  disabled: "bad",
  expired: "bad",
};

/** A status word (approved, revoked, pending, active, disabled) as a coloured badge. */
export function Badge({ children }: { children: string }) {
  const tone = TONES[children] ?? "neutral";
  return <span className={`badge ${tone}`}>{children}</span>;
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

/** A duration in seconds, with its largest whole unit ("3600 s (1 h)"). */
export function Seconds({ value }: { value: number }) {
  const units: Array<[number, string]> = [
    [86400, "d"],
    [3600, "h"],
    [60, "min"],
  ];
  const unit = units.find(([size]) => value >= size && value % size === 0);
  return (
    <span>
      {value} s{unit && value > 0 ? ` (${value / unit[0]} ${unit[1]})` : ""}
    </span>
  );
}

/** Words from a comma- or whitespace-separated input ("aisp, pisp" or "aisp pisp"), deduplicated. */
export function splitList(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter((s) => s !== ""))];
}

/** Lines of a textarea, trimmed, without blanks or duplicates. */
export function splitLines(text: string): string[] {
  return [...new Set(text.split(/\r?\n/).map((s) => s.trim()).filter((s) => s !== ""))];
}
