import { useId, type InputHTMLAttributes, type ReactNode } from "react";

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, "id" | "value" | "onChange" | "aria-describedby">;

/** A labelled text input, with an optional hint under the label. */
export function TextField({
  label,
  hint,
  value,
  onChange,
  ...input
}: InputProps & { label: ReactNode; hint?: ReactNode; value: string; onChange: (value: string) => void }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p id={`${id}-hint`} className="hint field-hint">
          {hint}
        </p>
      )}
      <input id={id} aria-describedby={hint ? `${id}-hint` : undefined} value={value} onChange={(e) => onChange(e.target.value)} {...input} />
    </div>
  );
}

/** A labelled textarea (one item per line). */
export function TextAreaField({
  label,
  hint,
  value,
  onChange,
  rows = 3,
  placeholder,
  disabled,
}: {
  label: ReactNode;
  hint?: ReactNode;
  value: string;
  onChange: (value: string) => void;
  rows?: number;
  placeholder?: string;
  disabled?: boolean;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p id={`${id}-hint`} className="hint field-hint">
          {hint}
        </p>
      )}
      <textarea
        id={id}
        rows={rows}
        placeholder={placeholder}
        disabled={disabled}
        aria-describedby={hint ? `${id}-hint` : undefined}
        value={value}
        onChange={(e) => onChange(e.target.value)}
      />
    </div>
  );
}

/** A labelled select. */
export function SelectField<T extends string>({
  label,
  value,
  onChange,
  options,
  required,
  disabled,
  placeholder,
}: {
  label: ReactNode;
  value: T | "";
  onChange: (value: T) => void;
  options: ReadonlyArray<{ value: T; label: string }>;
  required?: boolean;
  disabled?: boolean;
  /** A first, empty choice ("Choose a developer"). */
  placeholder?: string;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} required={required} disabled={disabled} onChange={(e) => onChange(e.target.value as T)}>
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
    </div>
  );
}

/** A checkbox with its label on the right. */
export function CheckboxField({
  label,
  checked,
  onChange,
  hint,
  disabled,
}: {
  label: ReactNode;
  checked: boolean;
  onChange: (checked: boolean) => void;
  hint?: ReactNode;
  disabled?: boolean;
}) {
  const id = useId();
  return (
    <div className="check">
      <input id={id} type="checkbox" checked={checked} disabled={disabled} aria-describedby={hint ? `${id}-hint` : undefined} onChange={(e) => onChange(e.target.checked)} />
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
 * A form's submit button. While `busy` it is aria-disabled rather than disabled, so that it
 * keeps keyboard focus; the form's handler ignores submits meanwhile (useAction.run does).
 */
export function SubmitButton({ busy, children, className = "button primary" }: { busy: boolean; children: ReactNode; className?: string }) {
  return (
    <button type="submit" className={className} aria-disabled={busy || undefined} aria-busy={busy || undefined}>
      {children}
    </button>
  );
}
