import type { Ref } from "react";
import { TextField } from "../../components/Field";

/** Longest factor name the forms take. */
export const FACTOR_NAME_MAX_LENGTH = 60;

/**
 * The end of a form that adds a sign-in method (an authenticator app or a passkey): the
 * method's name, the submit and cancel buttons, and a polite status line while `busy`.
 *
 * @param example - a name to suggest in the hint, e.g. "Laptop".
 * @param busyStatus - what the status line says while `busy`.
 */
export function FactorFormEnd({
  nameRef,
  example,
  name,
  onName,
  submitLabel,
  busy,
  busyStatus,
  onCancel,
}: {
  nameRef?: Ref<HTMLInputElement>;
  example: string;
  name: string;
  onName: (name: string) => void;
  submitLabel: string;
  busy: boolean;
  busyStatus: string;
  onCancel: () => void;
}) {
  return (
    <>
      <TextField
        ref={nameRef}
        label="Name"
        hint={`To tell your sign-in methods apart, for example “${example}”.`}
        name="factor-name"
        autoComplete="off"
        maxLength={FACTOR_NAME_MAX_LENGTH}
        required
        value={name}
        onChange={onName}
      />
      <div className="form-actions">
        <button type="submit" className="button primary" aria-disabled={busy || undefined} aria-busy={busy || undefined}>
          {submitLabel}
        </button>
        <button type="button" className="button secondary" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      </div>
      <p role="status" className="status">
        {busy ? busyStatus : ""}
      </p>
    </>
  );
}
