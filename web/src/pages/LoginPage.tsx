import { useCallback, useEffect, useRef, useState } from "react";
import { useLocation, useNavigate, useSearchParams } from "react-router";
import { InteractionApiError, isGone, isStale, submitLogin, type Credentials, type Interaction } from "../api/interaction";
import { getSession, signIn } from "../api/session";
import { InteractionPage } from "../components/InteractionPage";
import { Heading, IncompleteLink, LoadFailed, Loading, Page } from "../components/Page";
import { SignInForm, signInError, UNEXPECTED_RESPONSE, type SignInError } from "../components/SignInForm";
import { isSpaPath, leaveTo, safeNextPath } from "../lib/navigation";
import { isWithin, patterns, routes } from "../lib/routes";
import { useLoad } from "../lib/useLoad";

const TITLE = "Sign in";

/**
 * /login?interaction=<id>: the sign-in form of an authorization request.
 * /login?next=<path>: the console's and Account page's sign-in, then on to `next`.
 */
export function LoginPage() {
  const [params] = useSearchParams();
  const id = params.get("interaction");
  if (id) {
    return (
      <InteractionPage key={id} id={id} stage="login" title={TITLE}>
        {(interaction, reload) => <LoginForm interaction={interaction} onStale={reload} />}
      </InteractionPage>
    );
  }
  const next = safeNextPath(params.get("next"));
  if (next) return <SessionLogin key={next} next={next} />;
  return <IncompleteLink heading="This sign-in link is incomplete" />;
}

/** @param onStale - loads the interaction again (its stage or the session changed, e.g. signed in from another tab). */
function LoginForm({ interaction, onStale }: { interaction: Interaction; onStale: () => void }) {
  const navigate = useNavigate();
  const [leaving, setLeaving] = useState(false);

  async function onSignIn(credentials: Credentials): Promise<SignInError | undefined> {
    try {
      const result = await submitLogin(interaction.id, interaction.csrfToken, credentials);
      if ("stage" in result) {
        // The consent page loads the interaction again, with the new session's CSRF token.
        navigate(routes.consent(interaction.id), { replace: true });
        return undefined;
      }
      if (leaveTo(result.redirectTo)) {
        setLeaving(true);
        return undefined;
      }
      return UNEXPECTED_RESPONSE;
    } catch (err) {
      if (err instanceof InteractionApiError && isGone(err)) {
        navigate(routes.error(err.error, err.errorDescription), { replace: true });
        return undefined;
      }
      if (err instanceof InteractionApiError && isStale(err)) {
        onStale();
        return undefined;
      }
      return signInError(err);
    }
  }

  return (
    <Page title={TITLE}>
      <Heading>Sign in to continue to {interaction.client.name}</Heading>
      {interaction.client.organization && <p className="muted">Operated by {interaction.client.organization}</p>}
      <SignInForm initialUsername={interaction.user?.username ?? ""} leaving={leaving} onSignIn={onSignIn} />
    </Page>
  );
}

/** Signed in (or already signed in): on to `next`, inside the SPA when it is one of its pages. */
function useGoNext(next: string) {
  const navigate = useNavigate();
  return useCallback(() => {
    if (isSpaPath(next)) navigate(next, { replace: true });
    else window.location.replace(next);
  }, [navigate, next]);
}

/** Sign-in without an OAuth request (console, Account page): POST /session/login, then `next`. */
function SessionLogin({ next }: { next: string }) {
  const location = useLocation();
  const goNext = useGoNext(next);
  const { state, reload } = useLoad("session", getSession);
  const signedOut = (location.state as { signedOut?: boolean } | null)?.signedOut === true;
  const csrfToken = useRef("");

  useEffect(() => {
    if (state.status !== "ready") return;
    if (state.value.user) goNext();
    else csrfToken.current = state.value.csrfToken;
  }, [state, goNext]);

  const heading = isWithin(next, patterns.console) ? "Sign in to the Tollgate console" : "Sign in to your Tollgate account";
  if (state.status === "failed") return <LoadFailed title={TITLE} message={state.message} onRetry={reload} />;
  if (state.status === "loading" || state.value.user) return <Loading title={TITLE} />;

  async function onSignIn(credentials: Credentials): Promise<SignInError | undefined> {
    for (let tries = 0; ; tries++) {
      try {
        await signIn(csrfToken.current, credentials);
        goNext();
        return undefined;
      } catch (err) {
        // 403: the CSRF token of a session that was since replaced (e.g. a sign-in or
        // sign-out in another tab). Fetch the current one and try once more.
        if (!(err instanceof InteractionApiError && err.status === 403 && tries === 0)) return signInError(err);
        try {
          const session = await getSession();
          if (session.user) {
            goNext();
            return undefined;
          }
          csrfToken.current = session.csrfToken;
        } catch (reloadErr) {
          return signInError(reloadErr);
        }
      }
    }
  }

  return (
    <Page title={TITLE}>
      <Heading>{heading}</Heading>
      {signedOut && (
        <p role="status" className="notice">
          You have signed out.
        </p>
      )}
      <SignInForm initialUsername="" onSignIn={onSignIn} />
    </Page>
  );
}
