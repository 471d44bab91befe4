import { useCan } from "../../lib/session";
import { Can } from "../../components/Can";
import { useState, type FormEvent } from "react";
import { Link, useParams } from "react-router";
import { ACCESS_TOKEN_LIFETIME_SECONDS, REFRESH_TOKEN_LIFETIME_SECONDS, URL_MAX_LENGTH } from "../../../../server/src/kernel/limits";
import { ADD_CALLBACK_URL, APP, REMOVE_CALLBACK_URL, SET_APP_STATUS, SET_TOKEN_LIFETIMES, type AppDetail, type Status } from "../../api/admin";
import { applyMutation } from "../../lib/applyMutation";
import { ActionButton } from "../../components/ActionButton";
import { AdminPage } from "../../components/AdminPage";
import { ConfirmButton } from "../../components/ConfirmButton";
import { Facts } from "../../components/Facts";
import { SecondsField, SubmitButton, TextField } from "../../components/Field";
import { DateTime, Seconds } from "../../components/Format";
import { PanelForm } from "../../components/FormLayouts";
import { ActionNotices } from "../../components/Notices";
import { ObjectNotShown } from "../../components/ObjectNotShown";
import { Panel } from "../../components/Panel";
import { Tabs, type Tab } from "../../components/Tabs";
import { TokensSection } from "../../components/TokensSection";
import { signInName } from "../../lib/identity-providers";
import { routes } from "../../lib/routes";
import { useAction, useQuery } from "../../lib/useGraphQL";
import { AppCredentials } from "./AppCredentials";
import { AppRegistration, AppStatusBadge } from "./AppRegistration";
import { ClientSettings, SecurityProfileSettings, securityProfileName, SigningKeys } from "./AppSecurity";
import { AppSignIn } from "./AppSignIn";
import { DeleteApp, RenameApp } from "./AppLifecycle";
import { AppTraffic } from "./AppTraffic";

type SetApp = (app: AppDetail) => void;

/**
 * /admin/apps/:id[?tab=…]: the app in tabs (components/Tabs.tsx, the tab in the URL): Overview
 * (status, registration, name, deletion), Credentials (consumer keys and secrets), Security
 * (profile, client settings, signing keys, sign-in), Callback URLs, Tokens (lifetimes, live tokens), Traffic.
 */
export function AppDetailPage() {
  const { id = "" } = useParams();
  const query = useQuery(APP, { id });
  const app = query.data?.app;
  const setApp: SetApp = (next) => query.setData(() => ({ app: next }));

  const back = <Link to={routes.apps()}>← All apps</Link>;
  if (!app) return <ObjectNotShown query={query} title="App" noun="App" breadcrumb={back} />;
  const tabs: Tab[] = [
    {
      key: "overview",
      label: "Overview",
      content: () => (
        <>
          <Overview app={app} onChange={setApp} />
          {app.registration && <AppRegistration registration={app.registration} />}
          <RenameApp app={app} onChange={setApp} />
          <DeleteApp app={app} />
        </>
      ),
    },
    {
      key: "credentials",
      label: "Credentials",
      content: () => (
        <AppCredentials app={app} onChange={setApp} onRotated={query.reload} />
      ),
    },
    {
      key: "security",
      label: "Security",
      content: () => (
        <>
          <SecurityProfileSettings app={app} onChange={setApp} />
          {/* Mounted again when the profile changes, so that its fields start from the settings the switch left. */}
          <ClientSettings key={app.securityProfile} app={app} onChange={setApp} />
          <SigningKeys app={app} onChange={setApp} />
          <AppSignIn app={app} onChange={setApp} />
        </>
      ),
    },
    { key: "callback-urls", label: "Callback URLs", content: () => <CallbackUrls app={app} onChange={setApp} /> },
    {
      key: "tokens",
      label: "Tokens",
      content: () => (
        <>
          <TokenLifetimes app={app} onChange={setApp} />
          <TokensSection owner={{ appId: app.id }} title="Live tokens of this app" />
        </>
      ),
    },
    { key: "traffic", label: "Traffic", content: () => <AppTraffic app={app} /> },
  ];
  return (
    <AdminPage title={app.name} breadcrumb={back}>
      <Tabs label={`App ${app.name}`} tabs={tabs} />
    </AdminPage>
  );
}

/**
 * The app's status, owner and creation, with its status actions: "Revoke app" (confirmed) for
 * an approved or pending app, "Approve" (confirmed) for a registration awaiting the bank's
 * approval, "Approve app" for a revoked one.
 */
function Overview({ app, onChange }: { app: AppDetail; onChange: SetApp }) {
  const action = useAction();
  const can = useCan();
  const busy = action.pending !== null;

  function setStatus(status: Exclude<Status, "pending">) {
    void action.run(async () => {
      await applyMutation(SET_APP_STATUS, { appId: app.id, status }, onChange);
      return status === "approved" ? "App approved." : "App revoked.";
    });
  }

  const revoke = (
    <ConfirmButton
      label="Revoke app"
      question={`Revoke ${app.name}? Its consumer keys stop working and it gets no new tokens until approved again.`}
      confirmLabel="Yes, revoke the app"
      busy={busy}
      onConfirm={() => setStatus("revoked")}
    />
  );
  return (
    <Panel
      title="Overview"
      actions={
        !can("setAppStatus") ? null : app.status === "revoked" ? (
          <ActionButton label="Approve app" className="button primary small" disabled={busy} onClick={() => setStatus("approved")} />
        ) : app.status === "pending" ? (
          <>
            <ConfirmButton
              label="Approve"
              className="button primary small"
              question={`Approve ${app.name}? Its client can get tokens from then on.`}
              confirmLabel="Yes, approve the app"
              busy={busy}
              onConfirm={() => setStatus("approved")}
            />
            {revoke}
          </>
        ) : (
          revoke
        )
      }
    >
      {app.status === "pending" && (
        <p className="approval-notice">
          <strong>Waiting for the bank's approval:</strong> its client cannot get tokens yet. This app registered itself (dynamic client registration):
          check its registration below, then approve or revoke it.
        </p>
      )}
      <Facts
        facts={[
          ["Status", <AppStatusBadge status={app.status} />],
          ["Security profile", securityProfileName(app.securityProfile)],
          ["Sign-in", signInName(app.identityProvider)],
          ["Developer", app.developer.email],
          ["Organization", app.developer.organization.name],
          ["Created", <DateTime value={app.createdAt} />],
        ]}
      />
      <AuditLinks credentials={app.credentials} />
      <ActionNotices action={action} />
    </Panel>
  );
}

/**
 * Links to the audit log filtered by the app's consumer key: "Audit events of this app" for
 * an app with one credential, one link per consumer key for an app with more (the audit
 * log is filtered by one client id at a time).
 */
function AuditLinks({ credentials }: { credentials: AppDetail["credentials"] }) {
  const [only] = credentials;
  if (!only) return null;
  if (credentials.length === 1) {
    return (
      <p>
        <Link to={routes.audit({ clientId: only.consumerKey })}>Audit events of this app</Link>
      </p>
    );
  }
  return (
    <>
      <p className="hint">Audit events of this app, per consumer key:</p>
      <ul>
        {credentials.map((c) => (
          <li key={c.id}>
            <Link to={routes.audit({ clientId: c.consumerKey })}>
              Audit events of consumer key <code>{c.consumerKey}</code>
            </Link>{" "}
            <span className="muted small">({c.status})</span>
          </li>
        ))}
      </ul>
    </>
  );
}

function CallbackUrls({ app, onChange }: { app: AppDetail; onChange: SetApp }) {
  const action = useAction();
  const [url, setUrl] = useState("");

  function onAdd(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const value = url.trim();
    void action.run(async () => {
      await applyMutation(ADD_CALLBACK_URL, { appId: app.id, url: value }, onChange);
      setUrl("");
      return `Callback URL ${value} added.`;
    }, "add");
  }

  function remove(value: string) {
    void action.run(async () => {
      await applyMutation(REMOVE_CALLBACK_URL, { appId: app.id, url: value }, onChange);
      return `Callback URL ${value} removed.`;
    }, value);
  }

  return (
    <Panel title="Callback URLs">
      {app.callbackUrls.length === 0 ? (
        <p className="empty">No callback URLs: the app can only use the client credentials grant.</p>
      ) : (
        <ul className="url-list">
          {app.callbackUrls.map((value) => (
            <li key={value}>
              <code>{value}</code>
              <Can mutation="removeCallbackUrl">
                <ConfirmButton
                  label="Remove"
                  context={`callback URL ${value}`}
                  question="Remove this callback URL?"
                  confirmLabel="Yes, remove"
                  {...action.button(value)}
                  onConfirm={() => remove(value)}
                />
              </Can>
            </li>
          ))}
        </ul>
      )}
      <Can mutation="addCallbackUrl">
        <form className="inline-form" onSubmit={onAdd}>
          <TextField label="New callback URL" type="url" value={url} onChange={setUrl} required maxLength={URL_MAX_LENGTH} placeholder="https://app.example/callback" autoComplete="off" />
          <SubmitButton busy={action.pending === "add"} className="button secondary">
            Add callback URL
          </SubmitButton>
        </form>
      </Can>
      <ActionNotices action={action} />
    </Panel>
  );
}

function TokenLifetimes({ app, onChange }: { app: AppDetail; onChange: SetApp }) {
  const action = useAction();
  const [access, setAccess] = useState(String(app.accessTokenLifetimeSeconds));
  const [refresh, setRefresh] = useState(String(app.refreshTokenLifetimeSeconds));

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(async () => {
      const input = { accessTokenLifetimeSeconds: Number(access), refreshTokenLifetimeSeconds: Number(refresh) };
      await applyMutation(SET_TOKEN_LIFETIMES, { appId: app.id, input }, onChange);
      return "Token lifetimes saved. They apply to tokens issued from now on.";
    });
  }

  return (
    <PanelForm
      mutation="setTokenLifetimes"
      title="Token lifetimes"
      intro={
        <p className="muted small">
          Now: access tokens <Seconds value={app.accessTokenLifetimeSeconds} />, refresh tokens <Seconds value={app.refreshTokenLifetimeSeconds} />.
        </p>
      }
      action={action}
      submitLabel="Save lifetimes"
      onSubmit={onSubmit}
    >
      <SecondsField label="Access token lifetime" range={ACCESS_TOKEN_LIFETIME_SECONDS} value={access} onChange={setAccess} />
      <SecondsField label="Refresh token lifetime" range={REFRESH_TOKEN_LIFETIME_SECONDS} value={refresh} onChange={setRefresh} />
    </PanelForm>
  );
}
