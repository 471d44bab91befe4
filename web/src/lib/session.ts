import { createContext, useContext } from "react";
import type { SessionUser } from "../api/session";
import { can } from "./roles";

/** A sign-out for inactivity: the session's limit, seconds. */
export interface IdleSignOut {
  idleSeconds: number;
}

/** What the sign-in page is told by the page that sent it there (react-router location state). */
export interface SignInNotice {
  signedOut?: boolean;
  /** Signed out after this many seconds without activity. */
  idleSeconds?: number;
}

/** The signed-in user of a guarded area (/admin, /account), provided by RequireSession. */
export interface SessionContextValue {
  user: SessionUser;
  /**
   * Signs out, then goes to the sign-in page of the area; with `idle`, the page says the
   * session ended after that many seconds without activity.
   */
  signOut: (idle?: IdleSignOut) => Promise<void>;
  signingOut: boolean;
  /** The sign-out failed (network or server error), shown next to the button. */
  signOutError: string | null;
}

export const SessionContext = createContext<SessionContextValue | null>(null);

/** The signed-in user; only inside RequireSession. */
export function useSession(): SessionContextValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error("useSession is only available inside <RequireSession>");
  return value;
}

/**
 * Whether the signed-in user's role may call the admin API's mutation `mutation` (lib/roles.ts).
 * Outside RequireSession nothing is hidden: the server decides.
 */
export function useCan(): (mutation: string) => boolean {
  const role = useContext(SessionContext)?.user.role;
  return (mutation: string) => role === undefined || can(role, mutation);
}
