import { useId, type ComponentPropsWithRef, type ReactNode } from "react";
import { durationText } from "./Format";

/** The ids a field's control takes: its own, and those of the texts describing it. */
interface ControlIds {
  id: string;
  describedBy: string | undefined;
}

/**
 * A form field: its label, an optional hint under the label, then the control that
 * `children` renders with the given ids (the hint, and `describedBy`, describe it).
 */
function Field({
  label,
  hint,
  describedBy,
  children,
}: {
  label: ReactNode;
  hint?: ReactNode;
  /** Ids of more texts describing the control (e.g. an error message). */
  describedBy?: string;
  children: (ids: ControlIds) => ReactNode;
}) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const describing = [hintId, describedBy].filter(Boolean).join(" ");
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p id={hintId} className="hint field-hint">
          {hint}
        </p>
      )}
      {children({ id, describedBy: describing || undefined })}
    </div>
  );
}

type InputProps = Omit<ComponentPropsWithRef<"input">, "id" | "value" | "onChange" | "aria-describedby">;

/** A labelled text input, with an optional hint under the label; `ref` reaches the input. */
export function TextField({
  label,
  hint,
  describedBy,
  value,
  onChange,
  ...input
}: InputProps & { label: ReactNode; hint?: ReactNode; describedBy?: string; value: string; onChange: (value: string) => void }) {
  return (
    <Field label={label} hint={hint} describedBy={describedBy}>
      {(ids) => <input id={ids.id} aria-describedby={ids.describedBy} value={value} onChange={(e) => onChange(e.target.value)} {...input} />}
    </Field>
  );
}

/**
 * A labelled field for a one-time code from an authenticator app: numeric keyboard, the
 * browser's one-time-code autofill, no autocorrection, room for a code typed in groups
 * ("123 456"). `ref` reaches the input.
 */
export function OneTimeCodeField({
  digits,
  invalid,
  ...field
}: Omit<Parameters<typeof TextField>[0], "inputMode" | "autoComplete" | "maxLength" | "aria-invalid"> & { digits: number; invalid: boolean }) {
  return (
    <TextField
      name="one-time-code"
      inputMode="numeric"
      autoComplete="one-time-code"
      autoCapitalize="none"
      autoCorrect="off"
      spellCheck={false}
      maxLength={digits + 4}
      required
      aria-invalid={invalid || undefined}
      {...field}
    />
  );
}

/** A labelled textarea (one item per line), with an optional hint. */
export function TextAreaField({
  label,
  hint,
  value,
  onChange,
  rows = 3,
  placeholder,
}: {
  label: ReactNode;
  hint?: ReactNode;
  value: string;
  onChange: (value: string) => void;
  rows?: number;
  placeholder?: string;
}) {
  return (
    <Field label={label} hint={hint}>
      {(ids) => (
        <textarea id={ids.id} rows={rows} placeholder={placeholder} aria-describedby={ids.describedBy} value={value} onChange={(e) => onChange(e.target.value)} />
      )}
    </Field>
  );
}

/** A labelled select, with an optional hint under the label; `placeholder` is a first, empty choice ("Choose a developer"). */
export function SelectField<T extends string>({
  label,
  hint,
  value,
  onChange,
  options,
  required,
  placeholder,
}: {
  label: ReactNode;
  hint?: ReactNode;
  value: T | "";
  onChange: (value: T) => void;
  options: ReadonlyArray<{ value: T; label: string }>;
  required?: boolean;
  placeholder?: string;
}) {
  return (
    <Field label={label} hint={hint}>
      {(ids) => (
        <select id={ids.id} aria-describedby={ids.describedBy} value={value} required={required} onChange={(e) => onChange(e.target.value as T)}>
          {placeholder !== undefined && (
            <option value="" disabled>
              {placeholder}
            </option>
          )}
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** A checkbox with its label on the right, and an optional hint after it. */
export function CheckboxField({
  label,
  checked,
  onChange,
  hint,
}: {
  label: ReactNode;
  checked: boolean;
  onChange: (checked: boolean) => void;
  hint?: ReactNode;
}) {
  const id = useId();
  return (
    <div className="check">
      <input id={id} type="checkbox" checked={checked} aria-describedby={hint ? `${id}-hint` : undefined} onChange={(e) => onChange(e.target.checked)} />
      <label htmlFor={id}>{label}</label>
      {hint && (
        <span id={`${id}-hint`} className="hint check-hint">
          {hint}
        </span>
      )}
    </div>
  );
}

/**
 * A whole number of seconds within `range`, whose bounds the hint gives ("60 to 86400 (1
 * day)."): required, or `optional` with `blank` saying what leaving it blank means.
 */
export function SecondsField({
  label,
  range,
  optional = false,
  blank = "",
  value,
  onChange,
}: {
  label: string;
  range: { min: number; max: number };
  optional?: boolean;
  /** What a blank field means ("no limit"), for an optional one. */
  blank?: string;
  value: string;
  onChange: (value: string) => void;
}) {
  const bounds = `${range.min} to ${range.max} (${durationText(range.max)}).`;
  return (
    <TextField
      label={`${label} (seconds)`}
      hint={optional ? `Optional: ${bounds} Blank: ${blank}.` : bounds}
      type="number"
      inputMode="numeric"
      min={range.min}
      max={range.max}
      step={1}
      required={!optional}
      autoComplete="off"
      value={value}
      onChange={onChange}
    />
  );
}

/**
 * A form's submit button. While `busy` it is aria-disabled rather than disabled, so that it
 * keeps keyboard focus; the form's handler ignores submits meanwhile (useAction.run does).
 */
export function SubmitButton({
  busy,
  children,
  className = "button primary",
  ...button
}: { busy: boolean; children: ReactNode; className?: string } & Pick<ComponentPropsWithRef<"button">, "ref" | "aria-expanded" | "aria-controls">) {
  return (
    <button {...button} type="submit" className={className} aria-disabled={busy || undefined} aria-busy={busy || undefined}>
      {children}
    </button>
  );
}
