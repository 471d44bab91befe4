import { Link } from "react-router";
import { MY_CONSENTS, REVOKE_MY_CONSENT, type MyConsent } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { ConfirmButton } from "../../components/ConfirmButton";
import { DateTime } from "../../components/Format";
import { Heading, Page } from "../../components/Page";
import { RequireSession } from "../../components/RequireSession";
import { SignOutButton } from "../../components/SignOutButton";
import { routes } from "../../lib/routes";
import { useSession } from "../../lib/session";
import { useAction, useQuery } from "../../lib/useGraphQL";
import { AppList, type AppListSection } from "./AppList";
import { Psd2Consents } from "./Psd2Consents";
import { SignInMethods } from "./SignInMethods";
import { describeAccessUntil } from "../../lib/authorization-details";

/**
 * /account: the signed-in end user's connected apps (their consents) and PSD2 consents, which
 * they can revoke, and their sign-in methods (second factors), which they can add and remove.
 */
export function AccountPage() {
  return (
    <RequireSession home={routes.account()}>
      <Account />
    </RequireSession>
  );
}

function Account() {
  const { user } = useSession();
  return (
    <Page title="Your account" wide>
      <div className="account-head">
        <div>
          <Heading focus>Your account</Heading>
          <p className="muted">
            Signed in as <strong>{user.username}</strong>
          </p>
        </div>
        <SignOutButton className="button secondary small" />
      </div>
      {user.role === "admin" && (
        <p className="small">
          <Link to={routes.dashboard()}>Go to the Tollgate console</Link>
        </p>
      )}
      <ConnectedApps />
      <Psd2Consents />
      <SignInMethods />
    </Page>
  );
}

const CONNECTED_APPS: AppListSection = {
  id: "connected-apps",
  title: "Connected apps",
  intro:
    "These apps can access your accounts with the permissions you allowed. Revoking an app's access also revokes the tokens it holds; it will have to ask for your permission again.",
  empty: "No apps are connected to your account.",
};

/** "Connected apps": the apps the user allowed (their consents), with "Revoke". */
function ConnectedApps() {
  const query = useQuery(MY_CONSENTS);
  const action = useAction();
  const consents = query.data?.myConsents ?? [];

  function revoke(consent: MyConsent) {
    void action.run(async () => {
      await graphql(REVOKE_MY_CONSENT, { id: consent.id });
      query.setData((d) => ({ myConsents: d.myConsents.filter((c) => c.id !== consent.id) }));
      return `${consent.appName} can no longer access your accounts.`;
    }, consent.id);
  }

  const revokeButton = (consent: MyConsent) => (
    <ConfirmButton
      label="Revoke"
      context={`access for ${consent.appName}`}
      question={`Revoke ${consent.appName}'s access? This also revokes the app's tokens.`}
      confirmLabel="Yes, revoke access"
      {...action.button(consent.id)}
      onConfirm={() => revoke(consent)}
    />
  );

  return (
    <AppList section={CONNECTED_APPS} action={action} query={query} items={consents} actions={revokeButton}>
      {(consent) => (
        <>
          <p className="muted small">
            Operated by <bdi>{consent.organizationName}</bdi> · allowed <DateTime value={consent.grantedAt} /> · last used{" "}
            {consent.lastUsedAt ? <DateTime value={consent.lastUsedAt} /> : "never"}
          </p>
          {consent.accessUntil && <p className="small">Access lasts {describeAccessUntil(consent.accessUntil, navigator.language)}.</p>}
          <Permissions scopes={consent.scopes} />
        </>
      )}
    </AppList>
  );
}

/** What the user allowed: each scope's description, in words (never the scope's code). */
function Permissions({ scopes }: { scopes: MyConsent["scopes"] }) {
  if (scopes.length === 0) return <p className="muted small">No permissions</p>;
  return (
    <ul className="small" aria-label="Permissions">
      {scopes.map((scope) => (
        <li key={scope.name}>{scope.description}</li>
      ))}
    </ul>
  );
}
