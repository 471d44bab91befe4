import { useState } from "react";
import { useSearchParams } from "react-router";
import { ActionButton } from "../components/ActionButton";
import { Heading, Page } from "../components/Page";
import { endSession, getSession } from "../api/session";
import { brand } from "../lib/brand";

/** The parameters of an app's logout request this page passes on to the server (RP-Initiated Logout 1.0 §2). */
const PASSED = ["id_token_hint", "client_id", "post_logout_redirect_uri", "state"] as const;

/**
 * /logout: an app asked to end the PSU's session at the bank, without naming the signed-in
 * user (no `id_token_hint`, or another user's), so the PSU is asked first (RP-Initiated
 * Logout 1.0 §2). /logout?signed-out: the page shown after signing out when the app gave
 * nowhere to go back to.
 */
export function LogoutPage() {
  const [params] = useSearchParams();
  const [state, setState] = useState<"asking" | "busy" | "failed">("asking");
  if (params.has("signed-out")) {
    return (
      <Page title="Signed out">
        <Heading focus>You have signed out</Heading>
        <p>You are no longer signed in to {brand.name}. You can close this page.</p>
      </Page>
    );
  }
  const signOut = async () => {
    if (state === "busy") return;
    setState("busy");
    try {
      const request = Object.fromEntries(PASSED.flatMap((name) => (params.get(name) ? [[name, params.get(name)!]] : [])));
      const { csrfToken } = await getSession();
      window.location.assign(await endSession(csrfToken, request));
    } catch {
      setState("failed");
    }
  };
  return (
    <Page title="Sign out">
      <Heading focus>Sign out of {brand.name}?</Heading>
      <p>An app asked to end your session at {brand.name}. You will need to sign in again next time.</p>
      {state === "failed" && (
        <p role="alert" className="notice">
          Signing out did not work. Try again, or close this page.
        </p>
      )}
      <div className="actions">
        <ActionButton label="Sign out" className="button" busy={state === "busy"} onClick={() => void signOut()} />
        <a className="button secondary" href="/">
          Stay signed in
        </a>
      </div>
    </Page>
  );
}
