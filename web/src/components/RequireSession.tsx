import { useCallback, useMemo, useState, type ReactNode } from "react";
import { Link, Navigate, useLocation, useNavigate } from "react-router";
import { InteractionApiError } from "../api/interaction";
import { getSession, signOut as postSignOut } from "../api/session";
import { isStaff } from "../lib/roles";
import { routes } from "../lib/routes";
import { SessionContext, useSession, type IdleSignOut, type SessionContextValue, type SignInNotice } from "../lib/session";
import { useLoad } from "../lib/useLoad";
import { IdleNotice } from "./IdleNotice";
import { Heading, LoadFailed, Loading, Page } from "./Page";
import { SignOutButton } from "./SignOutButton";

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
 * Renders `children` for a signed-in user (a staff role: admin, support or auditor, when `staff`); sends anyone
 * else to the sign-in page, back to this page afterwards. A session with an idle limit (a
 * staff member's) gets the {@link IdleNotice}.
 *
 * @param home - where to come back to after signing out and in again ("/admin", "/account").
 */
export function RequireSession({ staff, home, children }: { staff?: boolean; home: string; children: ReactNode }) {
  const location = useLocation();
  const navigate = useNavigate();
  const { state, reload } = useLoad("session", getSession);
  const [signingOut, setSigningOut] = useState(false);
  const [signOutError, setSignOutError] = useState<string | null>(null);
  const session = state.status === "ready" ? state.value : null;
  const csrfToken = session?.csrfToken ?? "";

  const signOut = useCallback(async (idle?: IdleSignOut) => {
    setSigningOut(true);
    setSignOutError(null);
    try {
      await endSession(csrfToken);
      const notice: SignInNotice = idle ? { idleSeconds: idle.idleSeconds } : { signedOut: true };
      navigate(idle ? routes.signIn(`${location.pathname}${location.search}`) : routes.signIn(home), { replace: true, state: notice });
    } catch (err) {
      setSignOutError(
        err instanceof InteractionApiError && err.status === 0 && err.errorDescription ? err.errorDescription : "Signing out failed. Please try again.",
      );
    } finally {
      setSigningOut(false);
    }
  }, [csrfToken, home, navigate, location.pathname, location.search]);

  const user = session?.user ?? null;
  const value = useMemo<SessionContextValue | null>(
    () => (user ? { user, signOut, signingOut, signOutError } : null),
    [user, signOut, signingOut, signOutError],
  );

  if (state.status === "loading") return <Loading title="Loading" />;
  if (state.status === "failed") return <LoadFailed title="Error" message={state.message} onRetry={reload} />;
  if (!value) {
    const notice: SignInNotice | undefined = session?.endedIdle ? { idleSeconds: 0 } : undefined;
    return <Navigate to={routes.signIn(`${location.pathname}${location.search}`)} replace state={notice} />;
  }
  if (staff && !isStaff(value.user.role)) {
    return (
      <SessionContext value={value}>
        <Forbidden />
      </SessionContext>
    );
  }
  return (
    <SessionContext value={value}>
      {session?.idleSeconds && <IdleNotice idleSeconds={session.idleSeconds} />}
      {children}
    </SessionContext>
  );
}

/** A signed-in user who is not staff (admin, support, auditor), on /admin. */
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
        <Link to={routes.account()}>Go to your account</Link>
      </p>
      <SignOutButton />
    </Page>
  );
}
