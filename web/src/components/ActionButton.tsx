/**
 * A button that runs an action at once, e.g. "Approve". While a call runs it is
 * aria-disabled rather than disabled, so that it keeps keyboard focus (the action ignores
 * clicks meanwhile).
 *
 * @param context - words read by screen readers after the visible label ("PSD2-AISP-v1"),
 *   so that each of a table's buttons has a distinct name.
 */
export function ActionButton({
  label,
  context,
  busy = false,
  disabled = false,
  onClick,
  className = "button secondary small",
}: {
  label: string;
  context?: string;
  busy?: boolean;
  disabled?: boolean;
  onClick: () => void;
  className?: string;
}) {
  return (
    <button type="button" className={className} aria-disabled={disabled || undefined} aria-busy={busy || undefined} onClick={onClick}>
      {label}
      {context && <span className="visually-hidden"> {context}</span>}
    </button>
  );
}
