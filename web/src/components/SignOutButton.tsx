import { useSession } from "../lib/session";

/** "Sign out" for the signed-in user of the area; an error appears next to it when it fails. */
export function SignOutButton({ className = "button secondary" }: { className?: string }) {
  const { signOut, signingOut, signOutError } = useSession();
  return (
    <span className="sign-out">
      <button type="button" className={className} disabled={signingOut} aria-busy={signingOut || undefined} onClick={() => void signOut()}>
        Sign out
      </button>
      {signOutError && (
        <span role="alert" className="inline-alert">
          {signOutError}
        </span>
      )}
    </span>
  );
}
