import { useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from "react";
import { normalizeCode, TOTP_CODE_LENGTH, type FactorAnswer, type PasskeyCeremonyError } from "../api/factors";
import { OneTimeCodeField } from "./Field";
import { ErrorAlert, PendingStatus } from "./Notices";

const CODE_HINT = `The ${TOTP_CODE_LENGTH}-digit code your authenticator app shows now.`;
const MALFORMED_CODE = `Enter the ${TOTP_CODE_LENGTH} digits your authenticator app shows.`;

/**
 * The second element of strong customer authentication: a one-time code field and "Use a
 * passkey instead". Never says which factors the account has (the same step shows whether or
 * not the password was right). The code field takes focus when the step appears.
 *
 * @param title - the step's heading (an `<h2>`, or `<h3>` with `level` 3); it names the form.
 * @param onAnswer - checks the answer; resolves to the message to show here, or to nothing
 *   when the caller took over (moved on, or back to the password).
 * @param onCancel - shows a "Cancel" button (outside the sign-in).
 * @param leaving - the browser is leaving the page: the step stays disabled.
 */
export function FactorStep({
  title,
  level = 2,
  intro,
  submitLabel = "Continue",
  danger = false,
  leaving = false,
  onAnswer,
  onCancel,
}: {
  title: ReactNode;
  level?: 2 | 3;
  intro?: ReactNode;
  submitLabel?: string;
  /** The submit button removes something (red). */
  danger?: boolean;
  leaving?: boolean;
  onAnswer: (answer: FactorAnswer) => Promise<string | undefined>;
  onCancel?: () => void;
}) {
  const titleId = useId();
  const errorId = useId();
  const codeRef = useRef<HTMLInputElement>(null);
  const [code, setCode] = useState("");
  const [pending, setPending] = useState<FactorAnswer["method"] | null>(null);
  const [error, setError] = useState<{ message: string; code: boolean } | null>(null);

  useEffect(() => {
    codeRef.current?.focus();
  }, []);

  // After a failure, focus goes back to the code field (the pressed button was disabled meanwhile).
  useEffect(() => {
    if (error) codeRef.current?.focus();
  }, [error]);

  async function answer(given: FactorAnswer) {
    if (pending || leaving) return;
    setPending(given.method);
    setError(null);
    try {
      const message = await onAnswer(given);
      if (message) {
        if (given.method === "totp") setCode("");
        setError({ message, code: given.method === "totp" });
      }
    } finally {
      setPending(null);
    }
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const normalized = normalizeCode(code);
    if (normalized === null) {
      setError({ message: MALFORMED_CODE, code: true });
      return;
    }
    void answer({ method: "totp", code: normalized });
  }

  const busy = pending !== null || leaving;
  const Title = level === 2 ? "h2" : "h3";
  return (
    <form className="form factor-step" aria-labelledby={titleId} onSubmit={onSubmit} noValidate>
      <Title id={titleId} className="step-title">
        {title}
      </Title>
      {intro && <div className="step-intro">{intro}</div>}
      <ErrorAlert id={errorId} message={error?.message} />
      <OneTimeCodeField
        ref={codeRef}
        label="One-time code"
        hint={CODE_HINT}
        digits={TOTP_CODE_LENGTH}
        value={code}
        onChange={setCode}
        invalid={error?.code === true}
        describedBy={error?.code ? errorId : undefined}
      />
      <div className="actions">
        <button type="submit" className={danger ? "button danger" : "button primary"} disabled={busy} aria-busy={pending === "totp" || undefined}>
          {submitLabel}
        </button>
        <button type="button" className="button secondary" disabled={busy} aria-busy={pending === "passkey" || undefined} onClick={() => void answer({ method: "passkey" })}>
          Use a passkey instead
        </button>
        {onCancel && (
          <button type="button" className="button secondary" disabled={busy} onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
      <PendingStatus pending={pending} leaving={leaving} words={{ totp: "Checking the code…", passkey: "Waiting for your passkey…" }} />
    </form>
  );
}

/**
 * What to tell the user when the browser's part of a passkey ceremony failed (nothing was
 * sent for a verdict): cancelled or timed out, a passkey already there, or no WebAuthn.
 * @param creating - registering a new passkey rather than signing with one.
 */
export function passkeyFailureMessage(err: PasskeyCeremonyError, creating = false): string {
  switch (err.reason) {
    case "NotAllowedError":
    case "AbortError":
      return creating
        ? "No passkey was created: it was cancelled or took too long. Try again."
        : "The passkey was not used: it was cancelled or took too long. Try again, or enter a code.";
    case "InvalidStateError":
      return creating ? "This device or security key already has a passkey for your account." : "This passkey cannot be used here.";
    case "SecurityError":
    case "NotSupportedError":
      return "This browser cannot use passkeys on this site.";
    default:
      return creating ? "The passkey could not be created. Try again." : "The passkey could not be used. Try again, or enter a code.";
  }
}
