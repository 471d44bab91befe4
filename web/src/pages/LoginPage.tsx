import { useEffect, useRef, useState, type FormEvent } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { InteractionApiError, isGone, isStale, submitLogin, type Interaction } from "../api/interaction";
import { Heading, IncompleteLink, LoadFailed, Loading, Page } from "../components/Page";
import { errorPageUrl, leaveTo } from "../lib/navigation";
import { sentence } from "../lib/text";
import { useInteraction } from "../lib/useInteraction";

const TITLE = "Sign in";

/** /login?interaction=<id>: the sign-in form of an authorization request. */
export function LoginPage() {
  const [params] = useSearchParams();
  const id = params.get("interaction");
  if (!id) return <IncompleteLink heading="This sign-in link is incomplete" />;
  return <LoginInteraction key={id} id={id} />;
}

function LoginInteraction({ id }: { id: string }) {
  const navigate = useNavigate();
  const { state, reload } = useInteraction(id);
  const atConsent = state.status === "ready" && state.interaction.stage === "consent";

  useEffect(() => {
    if (atConsent) navigate(`/consent?interaction=${encodeURIComponent(id)}`, { replace: true });
  }, [atConsent, id, navigate]);

  if (state.status === "failed") return <LoadFailed title={TITLE} message={state.message} onRetry={reload} />;
  if (state.status === "loading" || atConsent) return <Loading title={TITLE} />;
  return <LoginForm interaction={state.interaction} onStale={reload} />;
}

function describeWait(seconds: number): string {
  if (seconds < 90) return `${seconds} ${seconds === 1 ? "second" : "seconds"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minutes`;
}

/** @param onStale - loads the interaction again (its stage or the session changed, e.g. signed in from another tab). */
function LoginForm({ interaction, onStale }: { interaction: Interaction; onStale: () => void }) {
  const navigate = useNavigate();
  const usernameRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);
  const submitRef = useRef<HTMLButtonElement>(null);
  const [username, setUsername] = useState(interaction.user?.username ?? "");
  const [password, setPassword] = useState("");
  const [submitting, setSubmitting] = useState(false);
  const [leaving, setLeaving] = useState(false);
  const [error, setError] = useState<{ message: string; credentials: boolean } | null>(null);

  // Focus the first field to fill in when the form appears (the password when the server
  // already knows who is signing in).
  const prefilled = interaction.user !== null;
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
      const result = await submitLogin(interaction.id, interaction.csrfToken, { username, password });
      if ("stage" in result) {
        // The consent page loads the interaction again, with the new session's CSRF token.
        navigate(`/consent?interaction=${encodeURIComponent(interaction.id)}`, { replace: true });
        return;
      }
      if (leaveTo(result.redirectTo)) {
        setLeaving(true);
        return;
      }
      setError({ message: "The server sent an unexpected response. Please try again.", credentials: false });
    } catch (err) {
      if (!(err instanceof InteractionApiError)) {
        setError({ message: "Something went wrong. Please try again.", credentials: false });
      } else if (isGone(err)) {
        navigate(errorPageUrl(err.error, err.errorDescription), { replace: true });
        return;
      } else if (isStale(err)) {
        onStale();
        return;
      } else if (err.status === 401) {
        // One message whatever was wrong: never reveal whether the account exists.
        setError({ message: "The username or password is incorrect.", credentials: true });
        setPassword("");
      } else if (err.status === 429) {
        const wait = err.retryAfterSeconds;
        setError({
          message:
            wait !== undefined && wait > 0
              ? `Too many sign-in attempts. Try again in ${describeWait(wait)}.`
              : "Too many sign-in attempts. Please wait a moment and try again.",
          credentials: false,
        });
      } else {
        setError({ message: err.errorDescription ? sentence(err.errorDescription) : "Something went wrong. Please try again.", credentials: false });
      }
    } finally {
      setSubmitting(false);
    }
  }

  const busy = submitting || leaving;
  const invalid = error?.credentials === true;
  return (
    <Page title={TITLE}>
      <Heading>Sign in to continue to {interaction.client.name}</Heading>
      {interaction.client.organization && <p className="muted">Operated by {interaction.client.organization}</p>}
      <form className="form" onSubmit={onSubmit}>
        {error && (
          <p id="login-error" role="alert" className="alert">
            {error.message}
          </p>
        )}
        <div className="field">
          <label htmlFor="login-username">Username</label>
          <input
            ref={usernameRef}
            id="login-username"
            name="username"
            type="text"
            autoComplete="username"
            autoCapitalize="none"
            autoCorrect="off"
            spellCheck={false}
            required
            maxLength={200}
            aria-invalid={invalid || undefined}
            aria-describedby={invalid ? "login-error" : undefined}
            value={username}
            onChange={(e) => setUsername(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="login-password">Password</label>
          <input
            ref={passwordRef}
            id="login-password"
            name="password"
            type="password"
            autoComplete="current-password"
            required
            maxLength={1000}
            aria-invalid={invalid || undefined}
            aria-describedby={invalid ? "login-error" : undefined}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </div>
        <div className="actions">
          <button ref={submitRef} type="submit" className="button primary" disabled={busy} aria-busy={busy || undefined}>
            Sign in
          </button>
        </div>
        <p role="status" className="status">
          {submitting ? "Signing in…" : leaving ? "Redirecting…" : ""}
        </p>
      </form>
    </Page>
  );
}
