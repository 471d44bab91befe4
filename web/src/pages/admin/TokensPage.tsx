import { useId, useMemo, useState, type FormEvent } from "react";
import { useSearchParams } from "react-router";
import { USERNAME_LENGTH } from "../../../../server/src/kernel/limits";
import { TOKEN_FILTER_OPTIONS, TOKENS, USERS, type TokenState } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { AdminPage } from "../../components/AdminPage";
import { SelectField, TextField } from "../../components/Field";
import { FilterActions } from "../../components/FilterActions";
import { ActionNotices, ErrorAlert } from "../../components/Notices";
import { PagedListTable } from "../../components/PagedListTable";
import { Panel } from "../../components/Panel";
import { revokeColumn, tokenColumns } from "../../components/TokenColumns";
import { browserTimeZone } from "../../lib/audit";
import { EMPTY_TOKEN_FILTER, hasTokenCriteria, readTokenFilter, TOKEN_STATES, tokenFilterQuery, tokenVariables, type TokenFilter } from "../../lib/tokens";
import { errorMessage, useAction, useConnection, useQuery } from "../../lib/useGraphQL";

/** Tokens per page of the table. */
const PAGE = 50;

/** A consumer key is at most this long in the filter (keys are generated, far shorter). */
const CLIENT_ID_MAX_LENGTH = 200;

const STATE_OPTIONS: ReadonlyArray<{ value: TokenState | ""; label: string }> = [
  { value: "", label: "Any state" },
  ...TOKEN_STATES.map((s) => ({ value: s.state, label: s.label })),
];

/** The id of the user named exactly `username`, or null when there is none. */
async function userIdOf(username: string): Promise<string | null> {
  const { users } = await graphql(USERS, { search: username, first: 50 });
  return users.nodes.find((u) => u.username === username)?.id ?? null;
}

/**
 * The filter form: state, consumer key, app (chosen from the first 200 apps, or the one the
 * URL names) and user (typed as a username, looked up on submit).
 */
function FilterForm({
  initial,
  apps,
  username: initialUsername,
  onSearch,
}: {
  initial: TokenFilter;
  apps: ReadonlyArray<{ id: string; name: string }>;
  /** The username of the URL's user, once known. */
  username: string;
  onSearch: (filter: TokenFilter) => void;
}) {
  const [state, setState] = useState<TokenState | "">(initial.state);
  const [clientId, setClientId] = useState(initial.clientId);
  const [appId, setAppId] = useState(initial.appId);
  const [username, setUsername] = useState(initialUsername);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const errorId = useId();

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    const name = username.trim();
    let userId = "";
    if (name && name === initialUsername) userId = initial.userId;
    else if (name) {
      setBusy(true);
      try {
        const found = await userIdOf(name);
        if (!found) {
          setError(`There is no user named “${name}”.`);
          return;
        }
        userId = found;
      } catch (err) {
        setError(errorMessage(err));
        return;
      } finally {
        setBusy(false);
      }
    }
    setError("");
    onSearch({ state, clientId: clientId.trim(), appId, userId });
  }

  const appOptions = [{ value: "", label: "Any app" }, ...apps.map((a) => ({ value: a.id, label: a.name }))];
  return (
    <form role="search" aria-label="Tokens" onSubmit={(e) => void onSubmit(e)}>
      <div className="form-grid">
        <SelectField label="State" value={state} onChange={setState} options={STATE_OPTIONS} />
        <TextField label="Client id (consumer key)" value={clientId} onChange={setClientId} maxLength={CLIENT_ID_MAX_LENGTH} autoComplete="off" spellCheck={false} />
        <SelectField label="App" value={appId} onChange={setAppId} options={appOptions} />
        <TextField
          label="User"
          hint="The username, exactly."
          value={username}
          onChange={setUsername}
          maxLength={USERNAME_LENGTH.max}
          autoComplete="off"
          spellCheck={false}
          describedBy={error ? errorId : undefined}
          aria-invalid={error ? true : undefined}
        />
      </div>
      <FilterActions errorId={errorId} error={error} busy={busy} filtered={hasTokenCriteria(initial)} onClear={() => onSearch(EMPTY_TOKEN_FILTER)} />
    </form>
  );
}

/**
 * /admin/tokens[?state=…&clientId=…&app=<id>&user=<id>]: issued access tokens, newest first,
 * in every state unless one is chosen, filtered by the criteria in the URL, with who revoked
 * each revoked one and when, "Revoke" on the live ones, and "Load more".
 */
export function TokensPage() {
  const [params, setParams] = useSearchParams();
  const { filter, badState } = readTokenFilter(params);
  const tokens = useConnection(TOKENS, { ...tokenVariables(filter), first: PAGE }, (d) => d.tokens);
  const options = useQuery(TOKEN_FILTER_OPTIONS, { appId: filter.appId, userId: filter.userId, withApp: filter.appId !== "", withUser: filter.userId !== "" });
  const action = useAction();
  const zone = useMemo(browserTimeZone, []);

  // The URL's app is offered even when it is not among the apps listed.
  const listed = options.data?.apps.nodes ?? [];
  const current = options.data?.app;
  const apps = current && !listed.some((a) => a.id === current.id) ? [current, ...listed] : listed;
  const named = options.data?.user;
  const username = named && named.id === filter.userId ? named.username : "";

  const columns = [
    ...tokenColumns({ state: true, app: true, user: true }),
    revokeColumn(action, (revoked) => tokens.update((nodes) => nodes.map((t) => (t.id === revoked.id ? { ...t, ...revoked } : t)))),
  ];
  const filtered = hasTokenCriteria(filter);
  return (
    <AdminPage
      title="Tokens"
      intro={`Access tokens issued to clients, newest first: live, revoked (by whom and when) or expired. Never their values. Times are in your browser's time zone, ${zone}.`}
    >
      <Panel title="Filter">
        <ErrorAlert message={options.error} />
        {/* Mounted again when the URL's filter changes, and once its user's name is known. */}
        <FilterForm
          key={`${JSON.stringify(filter)}:${username}`}
          initial={filter}
          apps={apps}
          username={username}
          onSearch={(next) => setParams(tokenFilterQuery(next))}
        />
      </Panel>
      <Panel title={filtered ? "Matching tokens" : "All tokens"}>
        {badState && (
          <p role="alert" className="alert">
            The state in the page’s address is not LIVE, REVOKED or EXPIRED and was left out: tokens in every state are listed.
          </p>
        )}
        <ActionNotices action={action} />
        <PagedListTable caption="Tokens" list={tokens} columns={columns} empty={filtered ? "No token matches these filters." : "No token was issued yet."} />
      </Panel>
    </AdminPage>
  );
}
