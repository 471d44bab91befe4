import { useState, type FormEvent } from "react";
import { useSearchParams } from "react-router";
import { CREATE_USER, SET_USER_STATUS, USERS, type Role, type User } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { AdminPage } from "../../components/AdminPage";
import { SearchForm } from "../../components/SearchForm";
import { ConfirmButton } from "../../components/ConfirmButton";
import { SelectField, SubmitButton, TextField } from "../../components/Field";
import { Badge, DateTime } from "../../components/Format";
import { ActionNotices } from "../../components/Notices";
import { ListState, LoadMore, Panel } from "../../components/Panel";
import { useSession } from "../../lib/session";
import { useAction, useConnection } from "../../lib/useGraphQL";
import { UserActivity } from "./UserActivity";

/** /admin/users[?search=…][&user=<id>]: users, and the live tokens and consents of the selected one. */
export function UsersPage() {
  const [params, setParams] = useSearchParams();
  const search = params.get("search")?.trim() ?? "";
  const selectedId = params.get("user");
  const users = useConnection(USERS, { ...(search ? { search } : {}), first: 50 }, (d) => d.users);
  const action = useAction();
  const me = useSession().user.username;
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

  return (
    <AdminPage title="Users" intro="End users and administrators who sign in to Tollgate.">
      <Panel title="All users">
        <SearchForm id="user-search" label="Search by username" name="Users" maxLength={100} initial={search} onSearch={(value) => navigate({ search: value, user: null })} />
        <ActionNotices action={action} />
        <ListState
          loading={users.loading}
          error={users.error}
          isEmpty={users.nodes.length === 0}
          empty={search ? `No username contains “${search}”.` : "There are no users yet."}
          onRetry={users.reload}
        >
          <div className="table-wrap">
            <table className="table" aria-busy={users.loading || undefined}>
              <thead>
                <tr>
                  <th scope="col">Username</th>
                  <th scope="col">Role</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {users.nodes.map((user) => (
                  <tr key={user.id} className={user.id === selectedId ? "selected" : undefined} aria-current={user.id === selectedId || undefined}>
                    <th scope="row">{user.username}</th>
                    <td>{user.role}</td>
                    <td>
                      <Badge>{user.status}</Badge>
                    </td>
                    <td>
                      <DateTime value={user.createdAt} />
                    </td>
                    <td className="cell-actions">
                      <button type="button" className="button secondary small" onClick={() => navigate({ user: user.id })}>
                        Tokens and consents<span className="visually-hidden"> of {user.username}</span>
                      </button>
                      {user.status === "active" ? (
                        user.username !== me && (
                          <ConfirmButton
                            label="Disable"
                            context={user.username}
                            question={`Disable ${user.username}? They can no longer sign in.`}
                            confirmLabel="Yes, disable"
                            busy={action.pending === user.id}
                            disabled={action.pending !== null}
                            onConfirm={() => setStatus(user, "disabled")}
                          />
                        )
                      ) : (
                        <button
                          type="button"
                          className="button secondary small"
                          aria-disabled={action.pending !== null || undefined}
                          aria-busy={action.pending === user.id || undefined}
                          onClick={() => setStatus(user, "active")}
                        >
                          Enable<span className="visually-hidden"> {user.username}</span>
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <LoadMore hasNextPage={users.hasNextPage} loading={users.loadingMore} onLoadMore={users.loadMore} what="users" />
        </ListState>
      </Panel>
      {selectedId && (
        <UserActivity key={selectedId} userId={selectedId} username={selected?.username} onClose={() => navigate({ user: null })} />
      )}
      <CreateUser onCreated={() => users.reload()} />
    </AdminPage>
  );
}

function CreateUser({ onCreated }: { onCreated: (user: User) => void }) {
  const action = useAction();
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [role, setRole] = useState<Role>("user");

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(async () => {
      const { createUser } = await graphql(CREATE_USER, { input: { username: username.trim(), password, role } });
      setUsername("");
      setPassword("");
      setRole("user");
      onCreated(createUser);
      return `User ${createUser.username} created${createUser.role === "admin" ? " (administrator)" : ""}.`;
    });
  }

  return (
    <Panel title="Create a user">
      <form className="form-grid" onSubmit={onSubmit}>
        <TextField
          label="Username"
          hint="3 to 100 letters, digits, . _ @ -"
          value={username}
          onChange={setUsername}
          required
          minLength={3}
          maxLength={100}
          pattern="[A-Za-z0-9._@\-]+"
          autoComplete="off"
          autoCapitalize="none"
          spellCheck={false}
        />
        <TextField
          label="Password"
          hint="At least 12 characters."
          type="password"
          value={password}
          onChange={setPassword}
          required
          minLength={12}
          maxLength={1000}
          autoComplete="new-password"
        />
        <SelectField<Role>
          label="Role"
          value={role}
          onChange={setRole}
          options={[
            { value: "user", label: "User" },
            { value: "admin", label: "Administrator" },
          ]}
        />
        <div className="form-actions">
          <SubmitButton busy={action.pending !== null}>Create user</SubmitButton>
        </div>
      </form>
      <ActionNotices action={action} />
    </Panel>
  );
}
