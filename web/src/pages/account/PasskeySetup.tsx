import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { FactorFormEnd } from "./FactorFormEnd";
import { ErrorAlert } from "../../components/Notices";

/**
 * "Add a passkey": a name for it, then the browser asks the user to create it (the device's
 * screen lock or a security key). The name field takes focus when it appears, and again
 * after a failure.
 *
 * @param error - why the last try failed, shown on the form; a new object for each failure.
 */
export function PasskeySetup({
  busy,
  error,
  onCreate,
  onCancel,
}: {
  busy: boolean;
  error: { message: string } | null;
  onCreate: (name: string) => void;
  onCancel: () => void;
}) {
  const titleId = useId();
  const nameRef = useRef<HTMLInputElement>(null);
  const [name, setName] = useState("");

  useEffect(() => {
    nameRef.current?.focus();
  }, [error]);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!busy) onCreate(name.trim());
  }

  return (
    <section className="step-panel" aria-labelledby={titleId}>
      <h3 id={titleId}>Add a passkey</h3>
      <p className="muted small">
        Your browser will ask you to create a passkey with this device's screen lock (fingerprint, face or PIN) or with a
        security key.
      </p>
      <form className="form-stack" onSubmit={onSubmit} aria-labelledby={titleId}>
        <ErrorAlert message={error?.message} />
        <FactorFormEnd kind="passkey" nameRef={nameRef} name={name} onName={setName} busy={busy} onCancel={onCancel} />
      </form>
    </section>
  );
}
