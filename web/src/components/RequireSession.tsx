import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { Link, Navigate, useLocation, useNavigate } from "react-router";
import { InteractionApiError } from "../api/interaction";
import { getSession, signOut as postSignOut, type Role, type SessionUser } from "../api/session";
import { loginUrl } from "../lib/navigation";
import { SessionContext, useSession, type SessionContextValue } from "../lib/session";
import { sentence } from "../lib/text";
import { Heading, LoadFailed, Loading, Page } from "./Page";
import { SignOutButton } from "./SignOutButton";

type State = { status: "loading" } | { status: "failed"; message: string } | { status: "ready"; user: SessionUser | null; csrfToken: string };

/** POST /session/logout; a 403 means the token is stale (the session changed): fetch the current one and retry once. */
async function endSession(csrfToken: string): Promise<void> {
  try {
    await postSignOut(csrfToken);
  } catch (err) {
    if (!(err instanceof InteractionApiError && err.status === 403)) throw err;
    const session = await getSession();
    if (session.user) await postSignOut(session.csrfToken);
  }
}

/**
 * Renders `children` for a signed-in user (an admin when `role` is "admin"); sends anyone
 * else to the sign-in page, back to this page afterwards.
 *
 * @param home - where to come back to after signing out and in again ("/admin", "/account").
 */
export function RequireSession({ role, home, children }: { role?: Role; home: string; children: ReactNode }) {
  const location = useLocation();
  const navigate = useNavigate();
  const [state, setState] = useState<State>({ status: "loading" });
  const [attempt, setAttempt] = useState(0);
  const [signingOut, setSigningOut] = useState(false);
  const [signOutError, setSignOutError] = useState<string | null>(null);
  const csrfToken = useRef("");

  useEffect(() => {
    const controller = new AbortController();
    getSession(controller.signal).then(
      (session) => {
        if (controller.signal.aborted) return;
        csrfToken.current = session.csrfToken;
        setState({ status: "ready", user: session.user, csrfToken: session.csrfToken });
      },
      (err: unknown) => {
        if (controller.signal.aborted) return;
        const message =
          err instanceof InteractionApiError && err.errorDescription
            ? sentence(err.errorDescription)
            : "Something went wrong while loading this page. Please try again.";
        setState({ status: "failed", message });
      },
    );
    return () => controller.abort();
  }, [attempt]);

  const signOut = useCallback(async () => {
    setSigningOut(true);
    setSignOutError(null);
    try {
      await endSession(csrfToken.current);
      navigate(loginUrl(home), { replace: true, state: { signedOut: true } });
    } catch (err) {
      setSignOutError(
        err instanceof InteractionApiError && err.status === 0 && err.errorDescription ? err.errorDescription : "Signing out failed. Please try again.",
      );
    } finally {
      setSigningOut(false);
    }
  }, [home, navigate]);

  const user = state.status === "ready" ? state.user : null;
  const value = useMemo<SessionContextValue | null>(
    () => (user ? { user, signOut, signingOut, signOutError } : null),
    [user, signOut, signingOut, signOutError],
  );

  if (state.status === "loading") return <Loading title="Loading" />;
  if (state.status === "failed") return <LoadFailed title="Error" message={state.message} onRetry={() => setAttempt((n) => n + 1)} />;
  if (!value) return <Navigate to={loginUrl(`${location.pathname}${location.search}`)} replace />;
  if (role === "admin" && value.user.role !== "admin") {
    return (
      <SessionContext value={value}>
        <Forbidden />
      </SessionContext>
    );
  }
  return <SessionContext value={value}>{children}</SessionContext>;
}

/** A signed-in user who is not an admin, on /admin. */
function Forbidden() {
  const { user } = useSession();
  return (
    <Page title="Administrator account needed">
      <Heading focus>You need an administrator account</Heading>
      <p>
        You are signed in as <strong>{user.username}</strong>, who cannot use the Tollgate console. Sign out and sign in with an
        administrator account.
      </p>
      <p>
        <Link to="/account">Go to your account</Link>
      </p>
      <SignOutButton />
    </Page>
  );
}
