import type { ReactNode } from "react";
import { Link } from "react-router";
import { PENDING_REGISTRATIONS, SET_APP_STATUS, type PendingRegistration } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { AdminPage } from "../../components/AdminPage";
import { ConfirmButton } from "../../components/ConfirmButton";
import { actionsColumn, type Column } from "../../components/DataTable";
import { DateTime } from "../../components/Format";
import { ListTable, LoadMore } from "../../components/ListTable";
import { ActionNotices } from "../../components/Notices";
import { Panel } from "../../components/Panel";
import { pendingRegistrationsChanged } from "../../lib/navigation";
import { organizationText } from "../../lib/registration";
import { routes } from "../../lib/routes";
import { useCan } from "../../lib/session";
import { useAction, useConnection, type Action } from "../../lib/useGraphQL";
import { RoleList } from "./AppRegistration";

const PAGE_SIZE = 25;

/** A decision on a registration: approve (its client may get tokens) or reject (its app is revoked). */
type Decision = "approved" | "revoked";

/** "Approve" (primary, confirmed with a primary button) and "Reject" (danger, confirmed) for one registration. */
function DecisionButtons({ app, action, onDecide }: { app: PendingRegistration; action: Action; onDecide: (app: PendingRegistration, decision: Decision) => void }) {
  const { busy, disabled } = action.button(app.id);
  return (
    <>
      <ConfirmButton
        label="Approve"
        context={app.name}
        className="button primary small"
        question={`Approve ${app.name}? Its client can get tokens from then on.`}
        confirmLabel="Yes, approve"
        busy={busy}
        disabled={disabled}
        onConfirm={() => onDecide(app, "approved")}
      />
      <ConfirmButton
        label="Reject"
        context={app.name}
        question={`Reject ${app.name}? Its app is revoked: its client gets no tokens, and the TPP may register the software again.`}
        confirmLabel="Yes, reject"
        busy={busy}
        disabled={disabled}
        onConfirm={() => onDecide(app, "revoked")}
      />
    </>
  );
}

/** The columns of the queue; the decisions only for a role that may set an app's status. */
function columns(decide: ((app: PendingRegistration) => ReactNode) | null): Column<PendingRegistration>[] {
  const facts: Column<PendingRegistration>[] = [
    { header: "App", rowHeader: true, cell: (app) => <Link to={routes.appDetail(app.id)}>{app.name}</Link> },
    {
      header: "Organization",
      cell: (app) => organizationText(app.registration?.organizationName ?? null, app.registration?.organizationId ?? null) ?? app.developer.organization.name,
    },
    { header: "Software id", cell: (app) => (app.registration ? <code>{app.registration.softwareId}</code> : <span className="muted">—</span>) },
    { header: "PSD2 roles", cell: (app) => <RoleList roles={app.registration?.roles ?? []} /> },
    { header: "Registered", cell: (app) => <DateTime value={app.registration?.registeredAt ?? app.createdAt} /> },
  ];
  return decide ? [...facts, actionsColumn(decide)] : facts;
}

/**
 * /admin/registrations: the dynamic registrations (RFC 7591) waiting for the bank's approval,
 * oldest first, each with its organization, software id and PSD2 roles, and for an admin
 * "Approve" (the primary action) and "Reject" (revokes the app; confirmed). A decided
 * registration leaves the list, and the navigation's count is read again.
 */
export function RegistrationsPage() {
  const can = useCan();
  const queue = useConnection(PENDING_REGISTRATIONS, { first: PAGE_SIZE }, (d) => d.pendingRegistrations);
  const action = useAction();

  function decide(app: PendingRegistration, decision: Decision) {
    void action.run(async () => {
      await graphql(SET_APP_STATUS, { appId: app.id, status: decision });
      queue.update((nodes) => nodes.filter((n) => n.id !== app.id));
      pendingRegistrationsChanged();
      return decision === "approved" ? `${app.name} approved: its client can get tokens.` : `${app.name} rejected: its app is revoked.`;
    }, app.id);
  }

  const decisions = can("setAppStatus") ? (app: PendingRegistration) => <DecisionButtons app={app} action={action} onDecide={decide} /> : null;
  return (
    <AdminPage
      title="Pending registrations"
      intro="Apps that registered themselves (dynamic client registration) and wait for the bank's approval: their clients get no tokens until approved."
    >
      <Panel title="Waiting for approval">
        <ActionNotices action={action} />
        <ListTable
          caption="Registrations waiting for approval, oldest first"
          list={queue}
          columns={columns(decisions)}
          rowKey={(app) => app.id}
          empty="No registration is waiting for approval."
        />
        <LoadMore list={queue} what="registrations" />
      </Panel>
    </AdminPage>
  );
}
