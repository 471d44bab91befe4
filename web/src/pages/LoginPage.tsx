import { useCallback, useEffect, useRef, useState } from "react";
import { useLocation, useNavigate, useSearchParams } from "react-router";
import { proofFor, type FactorAnswer } from "../api/factors";
import { InteractionApiError, isGone, isStale, submitFactor, submitLogin, submitNewPassword, type Credentials, type Interaction } from "../api/interaction";
import { getSession, signIn, submitSessionFactor, submitSessionPassword } from "../api/session";
import { InteractionPage } from "../components/InteractionPage";
import { Heading, IncompleteLink, LoadFailed, Loading, Page } from "../components/Page";
import { signInError, UNEXPECTED_RESPONSE, type SignInError } from "../components/SignInForm";
import { factorError, SignInSteps } from "../components/SignInSteps";
import { brand } from "../lib/brand";
import { isSpaPath, leaveTo, safeNextPath } from "../lib/navigation";
import { isWithin, patterns, routes, type LoginNotice } from "../lib/routes";
import type { SignInNotice } from "../lib/session";
import { sessionStep } from "../lib/sessionStep";
import { sentence } from "../lib/text";
import { useLoad } from "../lib/useLoad";

const TITLE = "Sign in";

/** What the sign-in page says when the consent came too late, unless the server said it in its own words. */
const INACTIVE = "You were inactive for more than 5 minutes. Sign in again to continue.";

/** The notice the page was opened with (navigation state, see lib/routes.ts), if any. */
function useNotice(): string | null {
  const location = useLocation();
  const notice = (location.state as { notice?: Partial<LoginNotice> } | null)?.notice;
  if (notice?.reason !== "inactive") return null;
  return typeof notice.message === "string" && notice.message !== "" ? sentence(notice.message) : INACTIVE;
}

/**
 * /login?interaction=<id>: the sign-in of an authorization request (password, then the
 * second factor when the server asks for it).
 * /login?next=<path>: the console's and Account page's sign-in, then on to `next`.
 */
export function LoginPage() {
  const [params] = useSearchParams();
  const id = params.get("interaction");
  if (id) {
    return (
      <InteractionPage key={id} id={id} stage="login" title={TITLE}>
        {(interaction, reload) =>
          interaction.identityProvider ? <SignInAtBank interaction={interaction} provider={interaction.identityProvider} /> : <LoginForm interaction={interaction} onStale={reload} />
        }
      </InteractionPage>
    );
  }
  const next = safeNextPath(params.get("next"));
  if (next) return <SessionLogin key={next} next={next} />;
  return <IncompleteLink heading="This sign-in link is incomplete" />;
}

/**
 * The sign-in step of a request whose PSU signs in at the bank's identity provider: back here
 * after the consent page sent them to sign in again (inactivity, "Not you?"), they go on there.
 */
function SignInAtBank({ interaction, provider }: { interaction: Interaction; provider: string }) {
  const notice = useNotice();
  return (
    <Page title={TITLE}>
      <Heading>
        Sign in to continue to <bdi>{interaction.client.name}</bdi>
      </Heading>
      {notice && (
        <p role="status" className="notice">
          {notice}
        </p>
      )}
      <p>
        You sign in at <bdi>{provider}</bdi>.
      </p>
      <p>
        <a className="button" href={routes.signInAtBank(interaction.id)}>
          Continue to <bdi>{provider}</bdi>
        </a>
      </p>
    </Page>
  );
}

/** @param onStale - loads the interaction again (its stage or the session changed, e.g. signed in from another tab). */
function LoginForm({ interaction, onStale }: { interaction: Interaction; onStale: () => void }) {
  const navigate = useNavigate();
  const notice = useNotice();
  const [leaving, setLeaving] = useState(false);
  // The session's CSRF token: a new one after the password (the session is renewed).
  const csrfToken = useRef(interaction.csrfToken);

  /** The common failures of both steps; undefined when the page took over. */
  function failure(err: unknown, describe: (err: unknown) => SignInError): SignInError | undefined {
    if (err instanceof InteractionApiError && isGone(err)) {
      navigate(routes.error(err.error, err.errorDescription), { replace: true });
      return undefined;
    }
    if (err instanceof InteractionApiError && isStale(err)) {
      onStale();
      return undefined;
    }
    return describe(err);
  }

  /** Consent next (the consent page loads the interaction again, with the session's new CSRF token), or leave. */
  function goOn(result: { stage: string } | { redirectTo: string }): SignInError | undefined {
    if ("stage" in result) {
      navigate(routes.consent(interaction.id), { replace: true });
      return undefined;
    }
    if (leaveTo(result.redirectTo)) {
      setLeaving(true);
      return undefined;
    }
    return UNEXPECTED_RESPONSE;
  }

  async function onPassword(credentials: Credentials): Promise<"factor" | "newPassword" | SignInError | undefined> {
    try {
      const result = await submitLogin(interaction.id, csrfToken.current, credentials);
      if ("stage" in result) csrfToken.current = result.csrfToken;
      if ("stage" in result && result.stage === "factor") return "factor";
      if ("stage" in result && result.stage === "password") return "newPassword";
      return goOn(result);
    } catch (err) {
      return failure(err, signInError);
    }
  }

  async function onFactor(answer: FactorAnswer): Promise<"newPassword" | SignInError | undefined> {
    try {
      const result = await submitFactor(interaction.id, csrfToken.current, await proofFor(answer, csrfToken.current));
      if ("stage" in result && result.stage === "password") {
        csrfToken.current = result.csrfToken;
        return "newPassword";
      }
      return goOn(result);
    } catch (err) {
      return failure(err, factorError);
    }
  }

  async function onNewPassword(password: string): Promise<SignInError | undefined> {
    try {
      return goOn(await submitNewPassword(interaction.id, csrfToken.current, password));
    } catch (err) {
      return failure(err, newPasswordError);
    }
  }

  return (
    <Page title={TITLE}>
      {/* The app's and organization's names are the TPP's text: isolated. */}
      <Heading>
        Sign in to continue to <bdi>{interaction.client.name}</bdi>
      </Heading>
      {interaction.client.organization && (
        <p className="muted">
          Operated by <bdi>{interaction.client.organization}</bdi>
        </p>
      )}
      {notice && (
        <p role="status" className="notice">
          {notice}
        </p>
      )}
      {interaction.scaRequired && interaction.stage === "login" && (
        <p className="muted small">After your password, you will confirm it's you with a code from your authenticator app or a passkey.</p>
      )}
      <SignInSteps
        initialUsername={interaction.user?.username ?? interaction.loginHint ?? ""}
        startAtFactor={interaction.stage === "factor"}
        leaving={leaving}
        onPassword={onPassword}
        onFactor={onFactor}
        onNewPassword={onNewPassword}
      />
    </Page>
  );
}

/** The message for a failed new password: its rules (400, in the server's words), else as a failed factor (409: the password comes again). */
function newPasswordError(err: unknown): SignInError {
  if (err instanceof InteractionApiError && err.status === 400) return { message: sentence(err.errorDescription ?? "This password cannot be used."), credentials: false };
  return factorError(err);
}

/** Signed in (or already signed in): on to `next`, inside the SPA when it is one of its pages. */
function useGoNext(next: string) {
  const navigate = useNavigate();
  return useCallback(() => {
    if (isSpaPath(next)) navigate(next, { replace: true });
    else window.location.replace(next);
  }, [navigate, next]);
}

/** The session's sign-in failed with a 403: its CSRF token is stale (e.g. a sign-in or sign-out in another tab). */
const isStaleToken = (err: unknown) => err instanceof InteractionApiError && err.status === 403;

/**
 * Sign-in without an OAuth request (console, Account page): POST /session/login, then
 * POST /session/factor when the account has a factor, then `next`.
 */
function SessionLogin({ next }: { next: string }) {
  const location = useLocation();
  const goNext = useGoNext(next);
  const { state, reload } = useLoad("session", getSession);
  const notice = (location.state as SignInNotice | null) ?? {};
  const csrfToken = useRef("");

  useEffect(() => {
    if (state.status !== "ready") return;
    if (state.value.user) goNext();
    else csrfToken.current = state.value.csrfToken;
  }, [state, goNext]);

  const heading = isWithin(next, patterns.console) ? "Sign in to the Tollgate console" : `Sign in to your ${brand.name} account`;
  if (state.status === "failed") return <LoadFailed title={TITLE} message={state.message} onRetry={reload} />;
  if (state.status === "loading" || state.value.user) return <Loading title={TITLE} />;

  /**
   * After a 403 (stale CSRF token): the current session. Signed in meanwhile (another tab):
   * on to `next` (true). Otherwise its token is taken for one more try (false).
   */
  async function refreshSession(): Promise<boolean> {
    const session = await getSession();
    if (session.user) {
      goNext();
      return true;
    }
    csrfToken.current = session.csrfToken;
    return false;
  }

  async function onPassword(credentials: Credentials): Promise<"factor" | "newPassword" | SignInError | undefined> {
    for (let tries = 0; ; tries++) {
      try {
        const result = await signIn(csrfToken.current, credentials);
        csrfToken.current = result.csrfToken;
        if (!result.user) return result.stage === "password" ? "newPassword" : "factor";
        goNext();
        return undefined;
      } catch (err) {
        // A stale CSRF token: fetch the current one and try once more.
        if (!(isStaleToken(err) && tries === 0)) return signInError(err);
        try {
          if (await refreshSession()) return undefined;
        } catch (reloadErr) {
          return signInError(reloadErr);
        }
      }
    }
  }

  async function onFactor(answer: FactorAnswer): Promise<"newPassword" | SignInError | undefined> {
    try {
      const result = await submitSessionFactor(csrfToken.current, await proofFor(answer, csrfToken.current));
      csrfToken.current = result.csrfToken;
      if (!result.user) return "newPassword";
      goNext();
      return undefined;
    } catch (err) {
      if (!isStaleToken(err)) return factorError(err);
      // The session changed meanwhile: signed in elsewhere (on to `next`), or the pending
      // sign-in is gone and the password comes again.
      try {
        if (await refreshSession()) return undefined;
        return { message: "Your sign-in was interrupted. Please sign in again.", credentials: false, restart: true };
      } catch (reloadErr) {
        return signInError(reloadErr);
      }
    }
  }

  function onNewPassword(password: string): Promise<SignInError | undefined> {
    return sessionStep(csrfToken, (token) => submitSessionPassword(token, password), goNext, newPasswordError);
  }

  return (
    <Page title={TITLE}>
      <Heading>{heading}</Heading>
      {notice.signedOut && (
        <p role="status" className="notice">
          You have signed out.
        </p>
      )}
      {notice.idleSeconds !== undefined && (
        <p role="status" className="notice">
          You were signed out because the console was not used {notice.idleSeconds > 0 ? `for ${Math.round(notice.idleSeconds / 60)} minutes` : "for a while"}. Sign in
          again to continue.
        </p>
      )}
      <SignInSteps
        initialUsername=""
        startAtFactor={state.value.factorPending}
        startAtNewPassword={state.value.passwordChangePending}
        onPassword={onPassword}
        onFactor={onFactor}
        onNewPassword={onNewPassword}
      />
    </Page>
  );
}
