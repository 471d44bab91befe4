import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from "react";
import { Link, useSearchParams } from "react-router";
import { API_NAME_MAX_LENGTH, PAGE_SIZE, USERNAME_LENGTH } from "../../../../server/src/kernel/limits";
import { AUDIT_EVENTS, NAMED_AUDIT_EVENTS, type AuditOutcome, type NamedAuditEvent } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { AdminPage } from "../../components/AdminPage";
import type { Column } from "../../components/DataTable";
import { ExactTime } from "../../components/ExactTime";
import { SelectField, TextField } from "../../components/Field";
import { FilterActions } from "../../components/FilterActions";
import { ActionNotices } from "../../components/Notices";
import { PagedListTable } from "../../components/PagedListTable";
import { Panel } from "../../components/Panel";
import {
  auditVariables,
  browserTimeZone,
  consentSummary,
  downloadFile,
  EMPTY_FILTER,
  EVENT_TYPES,
  eventTypeLabel,
  EXPORT_LIMIT,
  exportFileName,
  fetchAll,
  filterQuery,
  fromLocalInput,
  hasCriteria,
  otherDetails,
  rangeError,
  readDetails,
  readFilter,
  refusalOf,
  requestsOf,
  toCsv,
  toJson,
  toLocalInput,
  type AuditFilter,
} from "../../lib/audit";
import { useAction, useConnection } from "../../lib/useGraphQL";
import { routes } from "../../lib/routes";

/** Events per page of the table. */
const PAGE = 50;

/** A consumer key is at most this long in the filter (keys are generated, far shorter). */
const CLIENT_ID_MAX_LENGTH = 200;
/** A refusal's reason is an error code (RFC 6749 §5.2, RFC 6750 §3.1), far shorter. */
const REASON_MAX_LENGTH = 100;
/** A request id or x-fapi-interaction-id is at most 64 characters (server/src/kernel/limits.ts REQUEST_ID_PATTERN). */
const REQUEST_ID_MAX_LENGTH = 64;

const OUTCOME_OPTIONS: ReadonlyArray<{ value: AuditOutcome | ""; label: string }> = [
  { value: "", label: "Any outcome" },
  { value: "success", label: "Success" },
  { value: "failure", label: "Failure (refusals, failed sign-ins and SCA)" },
];

/** The names of the filter's criteria, for "ignored" notices. */
const CRITERIA: Record<keyof AuditFilter, string> = {
  type: "event type",
  clientId: "client id",
  username: "username",
  api: "API",
  reason: "reason",
  outcome: "outcome",
  from: "start time",
  to: "end time",
  requestId: "request id",
  interactionId: "interaction id",
};

const dash = <span className="muted">—</span>;

/** "a", "a and b", "a, b and c". */
const inWords = (items: readonly string[]) => (items.length > 1 ? `${items.slice(0, -1).join(", ")} and ${items.at(-1)}` : (items[0] ?? ""));

/** A field for one of a request's ids (X-Request-Id, x-fapi-interaction-id). */
function RequestIdField(field: { label: string; hint: string; value: string; onChange: (value: string) => void }) {
  return <TextField {...field} maxLength={REQUEST_ID_MAX_LENGTH} autoComplete="off" spellCheck={false} />;
}

/**
 * The filter form: every criterion of the audit log, the time range in the browser's time
 * zone (sent as UTC instants). Mounted again whenever the URL's filter changes.
 */
function FilterForm({ initial, zone, onSearch }: { initial: AuditFilter; zone: string; onSearch: (filter: AuditFilter) => void }) {
  const [type, setType] = useState(initial.type);
  const [clientId, setClientId] = useState(initial.clientId);
  const [username, setUsername] = useState(initial.username);
  const [api, setApi] = useState(initial.api);
  const [reason, setReason] = useState(initial.reason);
  const [outcome, setOutcome] = useState<AuditOutcome | "">(initial.outcome);
  const [from, setFrom] = useState(toLocalInput(initial.from));
  const [to, setTo] = useState(toLocalInput(initial.to));
  const [requestId, setRequestId] = useState(initial.requestId);
  const [interactionId, setInteractionId] = useState(initial.interactionId);
  const [error, setError] = useState("");
  const errorId = useId();

  // A type given in the URL that is not listed (e.g. admin.revokeCredential) stays selectable.
  const typeOptions = [
    { value: "", label: "Any type" },
    ...EVENT_TYPES.map((t) => ({ value: t.type, label: `${t.label} (${t.type})` })),
    ...(initial.type && !eventTypeLabel(initial.type) ? [{ value: initial.type, label: initial.type }] : []),
  ];

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const range = { from: from ? fromLocalInput(from) : "", to: to ? fromLocalInput(to) : "" };
    if (range.from === null || range.to === null) {
      setError("Enter the time range as a date and a time.");
      return;
    }
    const filter: AuditFilter = {
      type,
      clientId: clientId.trim(),
      username: username.trim(),
      api: api.trim(),
      reason: reason.trim(),
      outcome,
      from: range.from,
      to: range.to,
      requestId: requestId.trim(),
      interactionId: interactionId.trim(),
    };
    const problem = rangeError(filter);
    setError(problem);
    if (!problem) onSearch(filter);
  }

  /** A bound of the time range (to the second, in the browser's time zone), invalid while the range is refused. */
  const rangeField = (label: string, bound: string, value: string, onChange: (value: string) => void) => (
    <TextField
      label={label}
      hint={`${bound}, in your time zone (${zone}).`}
      type="datetime-local"
      step={1}
      value={value}
      onChange={onChange}
      describedBy={error ? errorId : undefined}
      aria-invalid={error ? true : undefined}
    />
  );
  return (
    <form role="search" aria-label="Audit log" onSubmit={onSubmit}>
      <div className="form-grid">
        <SelectField label="Event type" value={type} onChange={setType} options={typeOptions} />
        <TextField label="Client id (consumer key)" value={clientId} onChange={setClientId} maxLength={CLIENT_ID_MAX_LENGTH} autoComplete="off" spellCheck={false} />
        <TextField label="Username" value={username} onChange={setUsername} maxLength={USERNAME_LENGTH.max} autoComplete="off" spellCheck={false} />
        <TextField label="API" hint="Refused gateway calls to this API." value={api} onChange={setApi} maxLength={API_NAME_MAX_LENGTH} autoComplete="off" spellCheck={false} />
        <TextField
          label="Reason"
          hint="A refusal's error code, e.g. invalid_token."
          value={reason}
          onChange={setReason}
          maxLength={REASON_MAX_LENGTH}
          autoComplete="off"
          spellCheck={false}
        />
        <SelectField label="Outcome" value={outcome} onChange={setOutcome} options={OUTCOME_OPTIONS} />
        <RequestIdField label="Interaction id" hint="The x-fapi-interaction-id a caller got, e.g. with a refusal." value={interactionId} onChange={setInteractionId} />
        <RequestIdField label="Request id" hint="The X-Request-Id of the request." value={requestId} onChange={setRequestId} />
        {rangeField("From", "Inclusive", from, setFrom)}
        {rangeField("To", "Exclusive", to, setTo)}
      </div>
      <FilterActions errorId={errorId} error={error} busy={false} filtered={hasCriteria(initial)} onClear={() => onSearch(EMPTY_FILTER)} />
    </form>
  );
}

/** The event types of a change made to something (by the console or a registration), whose app is what was changed. */
const CHANGES = /^(admin|registration)\./;

/** A name of the audit log linked to its console page, with the internal id (actor or subject as recorded) second. */
function Named({ name, to, id }: { name: string | undefined; to: string | undefined; id: string }) {
  if (!id) return dash;
  if (!name || !to) return <code>{id}</code>;
  return (
    <>
      <Link to={to}>
        <bdi>{name}</bdi>
      </Link>
      <code className="block small muted">{id}</code>
    </>
  );
}

/** Who acted: the user by username, a client by its app's name, else the actor as recorded. */
function Who({ event: e }: { event: NamedAuditEvent }) {
  if (!e.actor) return <span className="muted">unknown</span>;
  if (e.user && e.actor === `user:${e.user.id}`) return <Named name={e.user.username} to={routes.users({ user: e.user.id })} id={e.actor} />;
  const client = !e.actor.includes(":") || e.actor.startsWith("client:");
  if (e.app && client && !CHANGES.test(e.type)) return <Named name={e.app.name} to={routes.appDetail(e.app.id)} id={e.actor} />;
  return <code>{e.actor}</code>;
}

/** What it was about: a PSD2 consent in a few words, a user, an app (what a change was made to), else the subject as recorded. */
function About({ event: e }: { event: NamedAuditEvent }) {
  if (e.psd2Consent) {
    const summary = `${consentSummary(e.psd2Consent, navigator.language)} (${e.psd2Consent.appName})`;
    return <Named name={summary} to={routes.psd2Consent(e.psd2Consent.id)} id={e.subject} />;
  }
  if (e.user && e.subject === e.user.id) return <Named name={e.user.username} to={routes.users({ user: e.user.id })} id={e.subject} />;
  if (e.app && CHANGES.test(e.type)) return <Named name={e.app.name} to={routes.appDetail(e.app.id)} id={e.subject} />;
  return e.subject ? <code>{e.subject}</code> : dash;
}

/** A request id, and for a grouped refusal the request and interaction ids it keeps (up to 20), folded. */
function Requests({ event: e }: { event: NamedAuditEvent }) {
  const details = readDetails(e.details);
  const { requestId } = refusalOf(details);
  const kept = requestsOf(details);
  if (kept.length <= 1) return requestId ? <code>{requestId}</code> : dash;
  return (
    <details className="request-ids">
      <summary>
        {kept.length} requests<span className="visually-hidden"> of this group</span>
      </summary>
      <ul className="small">
        {kept.map((r) => (
          <li key={r.requestId + r.interactionId}>
            <code>{r.requestId}</code>
            <span className="block muted">
              interaction <code>{r.interactionId}</code>
            </span>
          </li>
        ))}
      </ul>
    </details>
  );
}

/** The table's columns: when, what, who, about what, a refusal's reason and description, the count of an aggregate, the request id, the other details. */
const COLUMNS: Column<NamedAuditEvent>[] = [
  { header: "Time", rowHeader: true, cell: (e) => <ExactTime value={e.at} /> },
  {
    header: "Type",
    cell: (e) => (
      <>
        <code>{e.type}</code>
        {eventTypeLabel(e.type) && <span className="block small muted">{eventTypeLabel(e.type)}</span>}
      </>
    ),
  },
  { header: "Who", cell: (e) => <Who event={e} /> },
  { header: "About", cell: (e) => <About event={e} /> },
  {
    header: "Reason",
    cell: (e) => {
      const { reason, description } = refusalOf(readDetails(e.details));
      if (!reason && !description) return dash;
      return (
        <>
          {reason && <code>{reason}</code>}
          {description && <span className="block small">{description}</span>}
        </>
      );
    },
  },
  { header: "Count", className: "num", cell: (e) => (e.count > 1 ? `×${e.count}` : dash) },
  { header: "Request id", cell: (e) => <Requests event={e} /> },
  {
    header: "Details",
    cell: (e) => {
      const lines = otherDetails(readDetails(e.details));
      if (lines.length === 0) return dash;
      return lines.map((line) => (
        <span key={line} className="block small">
          {line}
        </span>
      ));
    },
  },
];

/**
 * /admin/audit[?type=…&clientId=…&username=…&api=…&reason=…&outcome=…&from=…&to=…&requestId=…&interactionId=…]: the audit log,
 * newest first, filtered by the criteria in the URL (so that a link opens it filtered), with
 * "Load more" and the filtered events as a CSV or JSON download.
 */
export function AuditPage() {
  const [params, setParams] = useSearchParams();
  const { filter, ignored } = readFilter(params);
  const filterKey = JSON.stringify(filter);
  const events = useConnection(NAMED_AUDIT_EVENTS, { ...auditVariables(filter), first: PAGE }, (d) => d.auditEvents);
  const zone = useMemo(browserTimeZone, []);
  const exporter = useAction();
  const [progress, setProgress] = useState("");
  const controller = useRef<AbortController | null>(null);
  useEffect(() => () => controller.current?.abort(), []);

  function exportAs(format: "csv" | "json") {
    void exporter.run(async () => {
      controller.current?.abort();
      const abort = new AbortController();
      controller.current = abort;
      const variables = auditVariables(filter);
      try {
        const { rows, capped } = await fetchAll(
          async (after, first) => (await graphql(AUDIT_EVENTS, { ...variables, first, after }, { signal: abort.signal })).auditEvents,
          { pageSize: PAGE_SIZE.max, onProgress: (n) => setProgress(`Fetching events for the export: ${n.toLocaleString()} so far…`) },
        );
        const now = new Date();
        const name = exportFileName(format, now);
        if (format === "csv") downloadFile(name, "text/csv;charset=utf-8", `\uFEFF${toCsv(rows)}`);
        else downloadFile(name, "application/json", toJson(rows, { filter, capped, exportedAt: now }));
        const count = `${rows.length.toLocaleString()} ${rows.length === 1 ? "event" : "events"}`;
        return capped
          ? `Downloaded ${name} with the newest ${EXPORT_LIMIT.toLocaleString()} events only: an export holds at most ${EXPORT_LIMIT.toLocaleString()}. Narrow the filter (e.g. the time range) to export the others.`
          : `Downloaded ${name} with ${count}.`;
      } finally {
        setProgress("");
      }
    }, format);
  }

  const exportButtons = (
    <>
      {(["csv", "json"] as const).map((format) => {
        const { busy, disabled } = exporter.button(format);
        return (
          <button
            key={format}
            type="button"
            className="button secondary small"
            disabled={disabled || events.nodes.length === 0}
            aria-busy={busy || undefined}
            onClick={() => exportAs(format)}
          >
            Export {format.toUpperCase()}
          </button>
        );
      })}
    </>
  );

  return (
    <AdminPage
      title="Audit log"
      intro={`Security events, newest first: tokens, refusals, sign-ins, consents and every change made in the console. Times are in your browser's time zone, ${zone}.`}
    >
      <Panel title="Filter">
        <FilterForm key={filterKey} initial={filter} zone={zone} onSearch={(next) => setParams(filterQuery(next))} />
      </Panel>
      <Panel title={hasCriteria(filter) ? "Matching events" : "All events"} actions={exportButtons}>
        {ignored.length > 0 && (
          <p role="alert" className="alert">
            The {inWords(ignored.map((key) => CRITERIA[key]))} in the page’s address {ignored.length === 1 ? "is not valid and was" : "are not valid and were"}{" "}
            left out: the events are filtered by the other criteria only.
          </p>
        )}
        <ActionNotices action={exporter} />
        <p role="status" className="status">
          {progress}
        </p>
        <PagedListTable
          caption="Audit events"
          list={events}
          columns={COLUMNS}
          empty={hasCriteria(filter) ? "No event matches these filters." : "The audit log is empty."}
        />
      </Panel>
    </AdminPage>
  );
}
