import { useSearchParams } from "react-router";
import { USERNAME_LENGTH } from "../../../../server/src/kernel/limits";
import { SET_USER_ROLE, SET_USER_STATUS, USERS, type Role, type User } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { SelectField } from "../../components/Field";
import { PanelForm } from "../../components/FormLayouts";
import { ActionButton } from "../../components/ActionButton";
import { AdminPage } from "../../components/AdminPage";
import { ConfirmButton } from "../../components/ConfirmButton";
import { actionsColumn, type Column } from "../../components/DataTable";
import { Badge, DateTime } from "../../components/Format";
import { ActionNotices } from "../../components/Notices";
import { PagedListTable } from "../../components/PagedListTable";
import { Panel } from "../../components/Panel";
import { SearchForm } from "../../components/SearchForm";
import { explainingConflict } from "../../lib/conflicts";
import { useCan, useSession } from "../../lib/session";
import { useAction, useConnection } from "../../lib/useGraphQL";
import { useState, type FormEvent } from "react";
import { CreateUserForm, ROLE_OPTIONS } from "./CreateUserForm";
import { UserActivity } from "./UserActivity";
import { statusText } from "../../lib/user-status";

/** /admin/users[?search=…][&user=<id>]: users, and the sign-in factors, live tokens and consents of the selected one. */
export function UsersPage() {
  const [params, setParams] = useSearchParams();
  const search = params.get("search")?.trim() ?? "";
  const selectedId = params.get("user");
  const users = useConnection(USERS, { ...(search ? { search } : {}), first: 50 }, (d) => d.users);
  const action = useAction();
  const me = useSession().user.username;
  const can = useCan();
  const selected = users.nodes.find((u) => u.id === selectedId);

  function navigate(next: { search?: string; user?: string | null }) {
    const query: Record<string, string> = {};
    const s = next.search ?? search;
    const u = next.user === undefined ? selectedId : next.user;
    if (s) query.search = s;
    if (u) query.user = u;
    setParams(query, { replace: next.search !== undefined });
  }

  function setStatus(user: User, status: User["status"]) {
    void action.run(async () => {
      const { setUserStatus } = await graphql(SET_USER_STATUS, { userId: user.id, status });
      users.update((nodes) => nodes.map((u) => (u.id === setUserStatus.id ? setUserStatus : u)));
      return status === "disabled" ? `${user.username} disabled.` : `${user.username} enabled.`;
    }, user.id);
  }

  const columns: Column<User>[] = [
    { header: "Username", rowHeader: true, cell: (u) => u.username },
    { header: "Role", cell: (u) => u.role },
    { header: "Status", cell: (u) => (statusText(u) === u.status ? <Badge>{u.status}</Badge> : <Badge tone="warn">{statusText(u)}</Badge>) },
    { header: "Created", cell: (u) => <DateTime value={u.createdAt} /> },
    actionsColumn((user) => (
      <>
        <button type="button" className="button secondary small" onClick={() => navigate({ user: user.id })}>
          Factors, tokens and consents<span className="visually-hidden"> of {user.username}</span>
        </button>
        {!can("setUserStatus") ? null : user.status === "active" ? (
          user.username !== me && (
            <ConfirmButton
              label="Disable"
              context={user.username}
              question={`Disable ${user.username}? They can no longer sign in.`}
              confirmLabel="Yes, disable"
              {...action.button(user.id)}
              onConfirm={() => setStatus(user, "disabled")}
            />
          )
        ) : (
          <ActionButton label="Enable" context={user.username} {...action.button(user.id)} onClick={() => setStatus(user, "active")} />
        )}
      </>
    )),
  ];

  return (
    <AdminPage title="Users" intro="End users and administrators who sign in to Tollgate.">
      <Panel title="All users">
        <SearchForm id="user-search" label="Search by username" name="Users" maxLength={USERNAME_LENGTH.max} initial={search} onSearch={(value) => navigate({ search: value, user: null })} />
        <ActionNotices action={action} />
        <PagedListTable
          caption="Users"
          list={users}
          columns={columns}
          isCurrent={(u) => u.id === selectedId}
          empty={search ? `No username contains “${search}”.` : "There are no users yet."}
        />
      </Panel>
      {selected && can("setUserRole") && (
        <UserRoleForm
          key={selected.id}
          user={selected}
          onSaved={(saved) => users.update((nodes) => nodes.map((u) => (u.id === saved.id ? saved : u)))}
        />
      )}
      {selectedId && (
        <UserActivity
          key={selectedId}
          userId={selectedId}
          username={selected?.username}
          user={selected}
          onChanged={(changed) => users.update((nodes) => nodes.map((u) => (u.id === changed.id ? changed : u)))}
          onClose={() => navigate({ user: null })}
        />
      )}
      <CreateUserForm onCreated={users.reload} />
    </AdminPage>
  );
}

/** "Role of <user>": an admin changes another user's role (setUserRole); the server refuses an admin's own (CONFLICT), shown here. */
function UserRoleForm({ user, onSaved }: { user: User; onSaved: (user: User) => void }) {
  const action = useAction();
  const [role, setRole] = useState<Role>(user.role);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(async () => {
      const { setUserRole } = await explainingConflict(graphql(SET_USER_ROLE, { userId: user.id, role }), "Another administrator can change it.");
      onSaved(setUserRole);
      return `${setUserRole.username} is now ${setUserRole.role}.`;
    });
  }

  return (
    <PanelForm mutation="setUserRole" title={`Role of ${user.username}`} action={action} submitLabel="Save role" onSubmit={onSubmit}>
      <SelectField label="Role" value={role} onChange={setRole} options={ROLE_OPTIONS} />
    </PanelForm>
  );
}
