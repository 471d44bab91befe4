import { useId, type RefObject } from "react";
import { proofFor, type FactorAnswer } from "../../api/factors";
import { InteractionApiError, type Credentials } from "../../api/interaction";
import { getSession, signIn, submitSessionFactor } from "../../api/session";
import { signInError, type SignInError } from "../../components/SignInForm";
import { factorError, SignInSteps } from "../../components/SignInSteps";
import { sessionStep } from "../../lib/sessionStep";

const isStaleToken = (err: unknown) => err instanceof InteractionApiError && err.status === 403;

/**
 * "For your security, confirm it's you": the signed-in user signs in again in place (password,
 * then the second factor when the account has one) because the server wants a fresh sign-in
 * before a change of sign-in methods (401 login_required). The session stays the same user.
 *
 * @param csrfToken - the session's CSRF token, updated as the sign-in renews it.
 * @param reason - the server's words for why (e.g. "Sign in again to change your sign-in methods.").
 * @param onConfirmed - signed in again; the caller retries what it was doing.
 */
export function ConfirmIdentity({
  username,
  csrfToken,
  reason,
  onConfirmed,
  onCancel,
}: {
  username: string;
  csrfToken: RefObject<string>;
  reason: string;
  onConfirmed: () => void;
  onCancel: () => void;
}) {
  const titleId = useId();

  /** Runs a call with the session's token; a stale token (403) is replaced by the current one for one more try. */
  async function withFreshToken<T>(call: (token: string) => Promise<T>): Promise<T> {
    try {
      return await call(csrfToken.current);
    } catch (err) {
      if (!isStaleToken(err)) throw err;
      csrfToken.current = (await getSession()).csrfToken;
      return call(csrfToken.current);
    }
  }

  async function onPassword(credentials: Credentials): Promise<"factor" | SignInError | undefined> {
    try {
      const result = await withFreshToken((token) => signIn(token, credentials));
      csrfToken.current = result.csrfToken;
      if (!result.user) return "factor";
      onConfirmed();
      return undefined;
    } catch (err) {
      return signInError(err);
    }
  }

  function onFactor(answer: FactorAnswer): Promise<SignInError | undefined> {
    return sessionStep(csrfToken, async (token) => submitSessionFactor(token, await proofFor(answer, token)), onConfirmed, factorError);
  }

  return (
    <section className="step-panel" aria-labelledby={titleId}>
      <h3 id={titleId}>For your security, confirm it's you</h3>
      <p className="muted small">{reason}</p>
      <SignInSteps
        initialUsername={username}
        fixedUsername
        submitLabel="Confirm"
        factorTitle="Second step: confirm it's you"
        level={3}
        onPassword={onPassword}
        onFactor={onFactor}
      />
      <div className="actions">
        <button type="button" className="button secondary small" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </section>
  );
}
