import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { SIGN_IN_PASSWORD_MAX_LENGTH, SIGN_IN_USERNAME_MAX_LENGTH } from "../../../server/src/kernel/limits";
import { InteractionApiError, type Credentials } from "../api/interaction";
import { describeFailure, sentence } from "../lib/text";
import { TextField } from "./Field";
import { ErrorAlert, PendingStatus } from "./Notices";
import { VERBATIM_TYPING } from "./VerbatimFields";

/**
 * A failed sign-in as shown to the user. `credentials`: the server's verdict was "the
 * sign-in details are incorrect" (it never says which element was wrong): the fields are
 * marked invalid.
 */
export interface SignInError {
  message: string;
  credentials: boolean;
  /** The attempt is over (a verdict, or blocked): the sign-in starts again at the password. */
  restart?: boolean;
}

/** The server's one message for a failed verdict, whichever element (username, password, code, passkey) was wrong. */
export const INCORRECT_DETAILS = "The sign-in details are incorrect.";

function describeWait(seconds: number): string {
  if (seconds < 90) return `${seconds} ${seconds === 1 ? "second" : "seconds"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minutes`;
}

/** The message for a failed sign-in call (401, 429 with Retry-After, anything else). */
export function signInError(err: unknown): SignInError {
  if (!(err instanceof InteractionApiError)) return { message: "Something went wrong. Please try again.", credentials: false };
  // One message whatever was wrong: never reveal whether the account exists, nor which
  // element failed (RTS Art. 4(2)). The server's description is that message.
  if (err.status === 401) {
    const message = err.error === "invalid_credentials" && err.errorDescription ? sentence(err.errorDescription) : INCORRECT_DETAILS;
    return { message, credentials: true, restart: true };
  }
  if (err.status === 429) {
    const wait = err.retryAfterSeconds;
    return {
      message:
        wait !== undefined && wait > 0
          ? `Too many sign-in attempts. Try again in ${describeWait(wait)}.`
          : err.errorDescription
            ? sentence(err.errorDescription)
            : "Too many sign-in attempts. Please wait a moment and try again.",
      credentials: false,
      restart: true,
    };
  }
  return { message: describeFailure(err), credentials: false };
}

export const UNEXPECTED_RESPONSE: SignInError = { message: "The server sent an unexpected response. Please try again.", credentials: false };

/**
 * The username and password form.
 *
 * @param onSignIn - signs in; resolves to the error to show, or to nothing when the caller
 *   took over (navigated, or set `leaving`).
 * @param leaving - the browser is leaving the page: the form stays disabled.
 * @param initialError - the error of the attempt that brought the user back here (a failed
 *   second factor), shown when the form appears.
 * @param fixedUsername - the username cannot be changed (confirming the signed-in user).
 */
export function SignInForm({
  initialUsername,
  initialError = null,
  fixedUsername = false,
  submitLabel = "Sign in",
  leaving = false,
  onSignIn,
}: {
  initialUsername: string;
  initialError?: SignInError | null;
  fixedUsername?: boolean;
  submitLabel?: string;
  leaving?: boolean;
  onSignIn: (credentials: Credentials) => Promise<SignInError | undefined>;
}) {
  const errorId = useId();
  const usernameRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);
  const submitRef = useRef<HTMLButtonElement>(null);
  const [username, setUsername] = useState(initialUsername);
  const [password, setPassword] = useState("");
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<SignInError | null>(initialError);

  // Focus the first field to fill in when the form appears (the password when the server
  // already knows who is signing in).
  const prefilled = initialUsername !== "";
  useEffect(() => {
    (prefilled || fixedUsername ? passwordRef : usernameRef).current?.focus();
  }, [prefilled, fixedUsername]);

  // After a failed attempt, put focus back where the user goes on from (the button was
  // disabled while submitting, which drops focus): the emptied password field, else the
  // button. The first field's focus above wins when the form appears with an error.
  useEffect(() => {
    if (error && error !== initialError) (error.credentials ? passwordRef : submitRef).current?.focus();
  }, [error, initialError]);

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
  const fieldState = { required: true, "aria-invalid": invalid || undefined, describedBy: invalid ? errorId : undefined };
  return (
    <form className="form" onSubmit={onSubmit}>
      <ErrorAlert id={errorId} message={error?.message} />
      <TextField
        ref={usernameRef}
        label="Username"
        name="username"
        autoComplete="username"
        {...VERBATIM_TYPING}
        maxLength={SIGN_IN_USERNAME_MAX_LENGTH}
        value={username}
        onChange={setUsername}
        readOnly={fixedUsername}
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
          {submitLabel}
        </button>
      </div>
      <PendingStatus pending={submitting ? "password" : null} leaving={leaving} words={{ password: "Signing in…" }} />
    </form>
  );
}
