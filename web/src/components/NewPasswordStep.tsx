import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { PASSWORD_LENGTH } from "../../../server/src/kernel/limits";
import { TextField } from "./Field";
import type { SignInError } from "./SignInForm";

/**
 * The sign-in's last step after a temporary password an administrator set: the user chooses
 * their own (the rules of the console's new users: PASSWORD_LENGTH), typed twice.
 *
 * @param onNewPassword - submits it; resolves to the error to show, or to nothing when the
 *   caller took over (navigated, or set `leaving`). An error with `restart` ends the attempt.
 * @param onRestart - the attempt is over: the password form comes back with the error.
 */
export function NewPasswordStep({
  username,
  level = 2,
  leaving = false,
  onNewPassword,
  onRestart,
}: {
  username: string;
  level?: 2 | 3;
  leaving?: boolean;
  onNewPassword: (password: string) => Promise<SignInError | undefined>;
  onRestart: (error: SignInError) => void;
}) {
  const errorId = useId();
  const titleId = useId();
  const passwordRef = useRef<HTMLInputElement>(null);
  const [password, setPassword] = useState("");
  const [repeated, setRepeated] = useState("");
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState("");
  useEffect(() => passwordRef.current?.focus(), []);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (submitting || leaving) return;
    if (password.length < PASSWORD_LENGTH.min) return setError(`Choose a password of at least ${PASSWORD_LENGTH.min} characters.`);
    if (password !== repeated) return setError("The two passwords are not the same.");
    setSubmitting(true);
    setError("");
    try {
      const failure = await onNewPassword(password);
      if (failure?.restart) onRestart(failure);
      else if (failure) setError(failure.message);
    } finally {
      setSubmitting(false);
    }
  }

  const Heading = level === 2 ? "h2" : "h3";
  const busy = submitting || leaving;
  const fieldState = { required: true, "aria-invalid": error ? true : undefined, describedBy: error ? errorId : undefined };
  return (
    <form className="form" aria-labelledby={titleId} onSubmit={(event) => void onSubmit(event)} noValidate>
      <Heading id={titleId} className="step-title">
        Choose a new password
      </Heading>
      <p className="muted">
        {username ? (
          <>
            Signing in as <strong>{username}</strong>.{" "}
          </>
        ) : null}
        You signed in with a temporary password. Choose your own password to go on: at least {PASSWORD_LENGTH.min} characters.
      </p>
      {error && (
        <p id={errorId} role="alert" className="alert">
          {error}
        </p>
      )}
      {[
        { label: "New password", name: "new-password", value: password, onChange: setPassword, ref: passwordRef },
        { label: "Repeat the new password", name: "repeat-password", value: repeated, onChange: setRepeated },
      ].map((field) => (
        <TextField key={field.name} type="password" autoComplete="new-password" maxLength={PASSWORD_LENGTH.max} {...field} {...fieldState} />
      ))}
      <div className="actions">
        <button type="submit" className="button primary" disabled={busy} aria-busy={busy || undefined}>
          Save and continue
        </button>
      </div>
    </form>
  );
}
