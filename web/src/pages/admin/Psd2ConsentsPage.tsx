import { useCan } from "../../lib/session";
import { useEffect, useState, type FormEvent } from "react";
import { Link, useSearchParams } from "react-router";
import { PSD2_CONSENTS, REVOKE_PSD2_CONSENT, type Psd2Consent } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { AdminPage } from "../../components/AdminPage";
import { ConsentDetails, Psd2Status } from "../../components/AuthorizationDetailsList";
import { ConfirmButton } from "../../components/ConfirmButton";
import { actionsColumn, type Column } from "../../components/DataTable";
import { DateTime } from "../../components/Format";
import { ListTable } from "../../components/ListTable";
import { ActionNotices } from "../../components/Notices";
import { Panel } from "../../components/Panel";
import { SearchForm } from "../../components/SearchForm";
import { describeStatus, formatDate, type Psd2ConsentStatus } from "../../lib/authorization-details";
import { describePsd2Consent, KIND_NAMES, ORIGIN_NAMES } from "../../lib/psd2-consents";
import { routes } from "../../lib/routes";
import { useAction, useQuery } from "../../lib/useGraphQL";

/** The statuses to filter by, in the order of a consent's life. */
const STATUSES: readonly Psd2ConsentStatus[] = [
  "received",
  "valid",
  "paymentPending",
  "consumed",
  "paymentRejected",
  "outcomeUnknown",
  "expired",
  "revokedByPsu",
  "terminatedByTpp",
  "rejected",
];

/** The status filter: a select and "Show", submitted as a form (choosing a status alone changes nothing). */
function StatusFilter({ initial, onFilter }: { initial: string; onFilter: (status: string) => void }) {
  const [value, setValue] = useState(initial);
  useEffect(() => setValue(initial), [initial]);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    onFilter(value);
  }

  return (
    <form className="search" role="search" aria-label="PSD2 consents by status" onSubmit={onSubmit}>
      <label htmlFor="psd2-status">Status</label>
      <select id="psd2-status" value={value} onChange={(e) => setValue(e.target.value)}>
        <option value="">Any status</option>
        {STATUSES.map((status) => (
          <option key={status} value={status}>
            {describeStatus(status, "admin")}
          </option>
        ))}
      </select>
      <button type="submit" className="button secondary small">
        Show
      </button>
    </form>
  );
}

/**
 * /admin/psd2-consents[?status=…][&search=…]: every PSD2 consent (RFC 9396 and Berlin Group), by status and by a
 * search (the consent id, the PSU's username, the TPP's consumer key or app name), each linked to its page ("View"),
 * with "Revoke" for an active one.
 */
export function Psd2ConsentsPage() {
  const [params, setParams] = useSearchParams();
  const status = params.get("status") ?? "";
  const search = params.get("search")?.trim() ?? "";
  const query = useQuery(PSD2_CONSENTS, { ...(status ? { status } : {}), ...(search ? { search } : {}) });
  /** The page's address with the status and search given (either one kept when left out). */
  const show = (next: { status?: string; search?: string }) => {
    const wanted: Record<string, string> = {};
    const s = next.status ?? status;
    const text = next.search ?? search;
    if (s) wanted.status = s;
    if (text) wanted.search = text;
    setParams(wanted, { replace: true });
  };
  const action = useAction();
  const can = useCan();
  const locale = navigator.language;

  function revoke(consent: Psd2Consent) {
    void action.run(async () => {
      const { revokePsd2Consent: revoked } = await graphql(REVOKE_PSD2_CONSENT, { id: consent.id });
      query.setData((d) => ({ psd2Consents: d.psd2Consents.map((c) => (c.id === revoked.id ? revoked : c)) }));
      return `${describePsd2Consent(consent)} revoked.`;
    }, consent.id);
  }

  const columns: Column<Psd2Consent>[] = [
    {
      header: "App",
      rowHeader: true,
      cell: (c) => (
        <>
          {c.appName}
          <span className="block small muted">{c.organizationName}</span>
        </>
      ),
    },
    { header: "User", cell: (c) => c.username ?? <span className="muted">—</span> },
    {
      header: "Kind",
      cell: (c) => (
        <>
          {KIND_NAMES[c.kind] ?? c.kind}
          <span className="block small muted">through {ORIGIN_NAMES[c.origin] ?? c.origin}</span>
        </>
      ),
    },
    { header: "Details", cell: (c) => <ConsentDetails json={c.authorizationDetails} /> },
    {
      header: "Status",
      cell: (c) => (
        <>
          <Psd2Status status={c.status} reader="admin" />
          {c.transactionStatus && (
            <span className="block small">
              {c.transactionStatus}
              {c.statusReason && <bdi>: {c.statusReason}</bdi>}
            </span>
          )}
          <span className="block small muted">
            since <DateTime value={c.statusChangedAt} zone />
          </span>
        </>
      ),
    },
    { header: "Valid until", cell: (c) => (c.validUntil ? formatDate(c.validUntil, locale) : <span className="muted">—</span>) },
    { header: "Asked", cell: (c) => <DateTime value={c.createdAt} zone /> },
    actionsColumn((consent) => {
      const context = `${describePsd2Consent(consent)} asked ${new Date(consent.createdAt).toLocaleString()}`;
      return (
        <>
          <Link to={routes.psd2Consent(consent.id)}>
            View<span className="visually-hidden"> {context}</span>
          </Link>
          {consent.status === "valid" && can("revokePsd2Consent") && (
            <ConfirmButton
              label="Revoke"
              context={context}
              question={`Revoke this consent? ${consent.appName} can no longer use it.`}
              confirmLabel="Yes, revoke"
              {...action.button(consent.id)}
              onConfirm={() => revoke(consent)}
            />
          )}
        </>
      );
    }),
  ];

  return (
    <AdminPage title="PSD2 consents" intro="Payments and account access that apps asked users for, through OAuth authorization details or the Berlin Group API.">
      <Panel title={status ? `PSD2 consents: ${describeStatus(status, "admin")}` : "All PSD2 consents"}>
        <SearchForm
          id="psd2-search"
          label="User, app, consumer key or consent id"
          name="PSD2 consents by user or app"
          initial={search}
          onSearch={(text) => show({ search: text })}
        />
        <StatusFilter initial={status} onFilter={(next) => show({ status: next })} />
        <ActionNotices action={action} />
        <ListTable
          caption="PSD2 consents"
          list={{ ...query, nodes: query.data?.psd2Consents ?? [] }}
          columns={columns}
          rowKey={(c) => c.id}
          empty={search ? `No PSD2 consent matches “${search}”${status ? " with this status" : ""}.` : status ? "No PSD2 consent has this status." : "There are no PSD2 consents yet."}
        />
      </Panel>
    </AdminPage>
  );
}
