import type { Ref } from "react";
import { TextField } from "../../components/Field";

/** Longest factor name the forms take. */
export const FACTOR_NAME_MAX_LENGTH = 60;

/** The words of each form: a name to suggest, the submit button, and the status line while busy. */
const WORDS = {
  totp: { example: "Work phone", submitLabel: "Add authenticator app", busyStatus: "Checking the code…" },
  passkey: { example: "Laptop", submitLabel: "Create the passkey", busyStatus: "Waiting for your passkey…" },
} as const;

/**
 * The end of a form that adds a sign-in method (`kind`: an authenticator app or a passkey):
 * the method's name, the submit and cancel buttons, and a polite status line while `busy`.
 */
export function FactorFormEnd({
  kind,
  nameRef,
  name,
  onName,
  busy,
  onCancel,
}: {
  kind: keyof typeof WORDS;
  nameRef?: Ref<HTMLInputElement>;
  name: string;
  onName: (name: string) => void;
  busy: boolean;
  onCancel: () => void;
}) {
  const words = WORDS[kind];
  return (
    <>
      <TextField
        ref={nameRef}
        label="Name"
        hint={`To tell your sign-in methods apart, for example “${words.example}”.`}
        name="factor-name"
        autoComplete="off"
        maxLength={FACTOR_NAME_MAX_LENGTH}
        required
        value={name}
        onChange={onName}
      />
      <div className="form-actions">
        <button type="submit" className="button primary" aria-disabled={busy || undefined} aria-busy={busy || undefined}>
          {words.submitLabel}
        </button>
        <button type="button" className="button secondary" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      </div>
      <p role="status" className="status">
        {busy ? words.busyStatus : ""}
      </p>
    </>
  );
}
