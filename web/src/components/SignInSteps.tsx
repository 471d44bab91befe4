import { useState } from "react";
import { PasskeyCeremonyError, type FactorAnswer } from "../api/factors";
import { InteractionApiError, type Credentials } from "../api/interaction";
import { FactorStep, passkeyFailureMessage } from "./FactorStep";
import { NewPasswordStep } from "./NewPasswordStep";
import { SignInForm, signInError, type SignInError } from "./SignInForm";

/**
 * The message for a failed second-factor call: the browser's passkey ceremony, or the
 * server's answer (as {@link signInError}). A 409 means no sign-in is waiting for a second
 * factor any more (it expired, or was answered in another tab): the password comes again.
 */
export function factorError(err: unknown): SignInError {
  if (err instanceof PasskeyCeremonyError) return { message: passkeyFailureMessage(err), credentials: false };
  if (err instanceof InteractionApiError && err.status === 409) return { ...signInError(err), restart: true };
  return signInError(err);
}

type Step = { name: "password"; error: SignInError | null } | { name: "factor" } | { name: "newPassword" };

/**
 * Sign-in with strong customer authentication, on one page: the username and password
 * form, then (when the server asks for it) the factor step. A failed verdict or a block ends
 * the attempt: the password form comes back with the message, whichever element was wrong.
 *
 * @param onPassword - submits the password; resolves to "factor" for the factor step, to the
 *   error to show, or to nothing when the caller took over (navigated, or set `leaving`).
 * @param onFactor - submits the second element; resolves to "newPassword" for the new password
 *   step, to the error, or to nothing when the caller took over.
 * @param onNewPassword - submits the new password that a sign-in with a temporary password asks
 *   for (the server answers the password or the factor with that step); resolves to the error,
 *   or to nothing when the caller took over.
 * @param startAtFactor - the password was already given (the page was loaded again while the
 *   second factor was awaited).
 * @param startAtNewPassword - likewise, while the new password was awaited.
 */
export function SignInSteps({
  initialUsername,
  fixedUsername = false,
  startAtFactor = false,
  startAtNewPassword = false,
  submitLabel,
  factorTitle = "Confirm it's you",
  level = 2,
  leaving = false,
  onPassword,
  onFactor,
  onNewPassword,
}: {
  initialUsername: string;
  fixedUsername?: boolean;
  startAtFactor?: boolean;
  startAtNewPassword?: boolean;
  submitLabel?: string;
  factorTitle?: string;
  /** Heading level of the factor step. */
  level?: 2 | 3;
  leaving?: boolean;
  onPassword: (credentials: Credentials) => Promise<"factor" | "newPassword" | SignInError | undefined>;
  onFactor: (answer: FactorAnswer) => Promise<"newPassword" | SignInError | undefined>;
  onNewPassword?: (password: string) => Promise<SignInError | undefined>;
}) {
  const [step, setStep] = useState<Step>(startAtNewPassword ? { name: "newPassword" } : startAtFactor ? { name: "factor" } : { name: "password", error: null });
  const [username, setUsername] = useState(initialUsername);

  async function password(credentials: Credentials): Promise<SignInError | undefined> {
    const result = await onPassword(credentials);
    if (result !== "factor" && result !== "newPassword") return result;
    setUsername(credentials.username);
    setStep(result === "factor" ? { name: "factor" } : { name: "newPassword" });
    return undefined;
  }

  async function factor(answer: FactorAnswer): Promise<string | undefined> {
    const failure = await onFactor(answer);
    if (failure === "newPassword") {
      setStep({ name: "newPassword" });
      return undefined;
    }
    if (!failure) return undefined;
    if (failure.restart) {
      setStep({ name: "password", error: failure });
      return undefined;
    }
    return failure.message;
  }

  if (step.name === "newPassword" && onNewPassword) {
    return (
      <NewPasswordStep username={username} level={level} leaving={leaving} onNewPassword={onNewPassword} onRestart={(error) => setStep({ name: "password", error })} />
    );
  }
  if (step.name === "factor") {
    return (
      <FactorStep
        title={factorTitle}
        level={level}
        intro={
          <p className="muted">
            {username ? (
              <>
                Signing in as <strong>{username}</strong>.{" "}
              </>
            ) : null}
            Enter the code from your authenticator app, or use a passkey.
          </p>
        }
        leaving={leaving}
        onAnswer={factor}
      />
    );
  }
  return (
    <SignInForm
      initialUsername={username}
      initialError={step.name === "password" ? step.error : null}
      fixedUsername={fixedUsername}
      submitLabel={submitLabel}
      leaving={leaving}
      onSignIn={password}
    />
  );
}
