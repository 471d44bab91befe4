import { useEffect, useRef, useState, type FormEvent } from "react";
import { SIGN_IN_PASSWORD_MAX_LENGTH, SIGN_IN_USERNAME_MAX_LENGTH } from "../../../server/src/kernel/limits";
import { InteractionApiError, type Credentials } from "../api/interaction";
import { describeFailure } from "../lib/text";
import { TextField } from "./Field";

/** A failed sign-in as shown to the user; `credentials` when the username or password was wrong. */
export interface SignInError {
  message: string;
  credentials: boolean;
}

function describeWait(seconds: number): string {
  if (seconds < 90) return `${seconds} ${seconds === 1 ? "second" : "seconds"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minutes`;
}

/** The message for a failed sign-in call (401, 429 with Retry-After, anything else). */
export function signInError(err: unknown): SignInError {
  if (!(err instanceof InteractionApiError)) return { message: "Something went wrong. Please try again.", credentials: false };
  // One message whatever was wrong: never reveal whether the account exists.
  if (err.status === 401) return { message: "The username or password is incorrect.", credentials: true };
  if (err.status === 429) {
    const wait = err.retryAfterSeconds;
    return {
      message:
        wait !== undefined && wait > 0
          ? `Too many sign-in attempts. Try again in ${describeWait(wait)}.`
          : "Too many sign-in attempts. Please wait a moment and try again.",
      credentials: false,
    };
  }
  return { message: describeFailure(err), credentials: false };
}

/** The error message's id: after wrong credentials it describes both fields. */
const ERROR_ID = "login-error";

export const UNEXPECTED_RESPONSE: SignInError = { message: "The server sent an unexpected response. Please try again.", credentials: false };

/**
 * The username and password form.
 *
 * @param onSignIn - signs in; resolves to the error to show, or to nothing when the caller
 *   took over (navigated, or set `leaving`).
 * @param leaving - the browser is leaving the page: the form stays disabled.
 */
export function SignInForm({
  initialUsername,
  leaving = false,
  onSignIn,
}: {
  initialUsername: string;
  leaving?: boolean;
  onSignIn: (credentials: Credentials) => Promise<SignInError | undefined>;
}) {
  const usernameRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);
  const submitRef = useRef<HTMLButtonElement>(null);
  const [username, setUsername] = useState(initialUsername);
  const [password, setPassword] = useState("");
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<SignInError | null>(null);

  // Focus the first field to fill in when the form appears (the password when the server
  // already knows who is signing in).
  const prefilled = initialUsername !== "";
  useEffect(() => {
    (prefilled ? passwordRef : usernameRef).current?.focus();
  }, [prefilled]);

  // After a failed attempt, put focus back where the user goes on from (the button was
  // disabled while submitting, which drops focus): the emptied password field, else the button.
  useEffect(() => {
    if (error) (error.credentials ? passwordRef : submitRef).current?.focus();
  }, [error]);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (submitting || leaving) return;
    setSubmitting(true);
    setError(null);
    try {
      const failure = await onSignIn({ username, password });
      if (failure) {
        if (failure.credentials) setPassword("");
        setError(failure);
      }
    } finally {
      setSubmitting(false);
    }
  }

  const busy = submitting || leaving;
  // After wrong credentials, both fields are marked invalid and described by the error.
  const invalid = error?.credentials === true;
  const fieldState = { required: true, "aria-invalid": invalid || undefined, describedBy: invalid ? ERROR_ID : undefined };
  return (
    <form className="form" onSubmit={onSubmit}>
      {error && (
        <p id={ERROR_ID} role="alert" className="alert">
          {error.message}
        </p>
      )}
      <TextField
        ref={usernameRef}
        label="Username"
        name="username"
        autoComplete="username"
        autoCapitalize="none"
        autoCorrect="off"
        spellCheck={false}
        maxLength={SIGN_IN_USERNAME_MAX_LENGTH}
        value={username}
        onChange={setUsername}
        {...fieldState}
      />
      <TextField
        ref={passwordRef}
        label="Password"
        name="password"
        type="password"
        autoComplete="current-password"
        maxLength={SIGN_IN_PASSWORD_MAX_LENGTH}
        value={password}
        onChange={setPassword}
        {...fieldState}
      />
      <div className="actions">
        <button ref={submitRef} type="submit" className="button primary" disabled={busy} aria-busy={busy || undefined}>
          Sign in
        </button>
      </div>
      <p role="status" className="status">
        {submitting ? "Signing in…" : leaving ? "Redirecting…" : ""}
      </p>
    </form>
  );
}
