import { useCan } from "../../lib/session";
import { Link, useParams } from "react-router";
import { PSD2_CONSENT, REVOKE_PSD2_CONSENT, type Psd2ConsentDetail } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { AdminPage } from "../../components/AdminPage";
import { ConsentDetails, Psd2Status } from "../../components/AuthorizationDetailsList";
import { ConfirmButton } from "../../components/ConfirmButton";
import { EvidencePanel } from "../../components/EvidencePanel";
import { Facts } from "../../components/Facts";
import { DateTime } from "../../components/Format";
import { ActionNotices } from "../../components/Notices";
import { ObjectNotShown } from "../../components/ObjectNotShown";
import { Panel } from "../../components/Panel";
import { formatDate } from "../../lib/authorization-details";
import { detailsForExport } from "../../lib/evidence";
import { describePsd2Consent, KIND_NAMES, ORIGIN_NAMES } from "../../lib/psd2-consents";
import { routes } from "../../lib/routes";
import { useAction, useQuery } from "../../lib/useGraphQL";

/** The consent's facts as the evidence export holds them. */
function exportedFacts(c: Psd2ConsentDetail): Record<string, unknown> {
  return {
    type: "psd2Consent",
    id: c.id,
    appName: c.appName,
    organizationName: c.organizationName,
    clientId: c.clientId,
    username: c.username,
    kind: c.kind,
    origin: c.origin,
    status: c.status,
    authorizationDetails: detailsForExport(c.authorizationDetails),
    validUntil: c.validUntil,
    createdAt: c.createdAt,
    statusChangedAt: c.statusChangedAt,
    transactionStatus: c.transactionStatus,
    statusReason: c.statusReason,
  };
}

/** /admin/psd2-consents/:id: one PSD2 consent's facts, "Revoke" while it is valid, and the evidence of its signed authorization. */
export function Psd2ConsentPage() {
  const { id = "" } = useParams();
  const query = useQuery(PSD2_CONSENT, { id });
  const consent = query.data?.psd2Consent;
  const back = <Link to={routes.psd2Consents()}>← All PSD2 consents</Link>;

  if (!consent) return <ObjectNotShown query={query} title="PSD2 consent" noun="Consent" breadcrumb={back} />;
  return (
    <AdminPage title={describePsd2Consent(consent)} breadcrumb={back}>
      <Overview consent={consent} onRevoked={(revoked) => query.setData((d) => ({ psd2Consent: d.psd2Consent && { ...d.psd2Consent, ...revoked } }))} />
      <EvidencePanel consentId={consent.id} consent={exportedFacts(consent)} evidence={consent.evidence} />
    </AdminPage>
  );
}

/** The consent's facts, with "Revoke" (confirmed) while it is valid, as the list has it. */
function Overview({ consent, onRevoked }: { consent: Psd2ConsentDetail; onRevoked: (revoked: Omit<Psd2ConsentDetail, "evidence">) => void }) {
  const action = useAction();
  const can = useCan();
  const locale = navigator.language;

  function revoke() {
    void action.run(async () => {
      const { revokePsd2Consent } = await graphql(REVOKE_PSD2_CONSENT, { id: consent.id });
      onRevoked(revokePsd2Consent);
      return `${describePsd2Consent(consent)} revoked.`;
    }, "revoke");
  }

  return (
    <Panel
      title="Consent"
      actions={
        consent.status === "valid" && can("revokePsd2Consent") ? (
          <ConfirmButton
            label="Revoke"
            context={describePsd2Consent(consent)}
            question={`Revoke this consent? ${consent.appName} can no longer use it.`}
            confirmLabel="Yes, revoke"
            {...action.button("revoke")}
            onConfirm={revoke}
          />
        ) : undefined
      }
    >
      <Facts
        facts={[
          ["App", consent.appName],
          ["Organization", consent.organizationName],
          ["Client id", <code>{consent.clientId}</code>],
          ["User", consent.username ?? <span className="muted">—</span>],
          [
            "Kind",
            <>
              {KIND_NAMES[consent.kind] ?? consent.kind}
              <span className="block small muted">through {ORIGIN_NAMES[consent.origin] ?? consent.origin}</span>
            </>,
          ],
          [
            "Status",
            <>
              <Psd2Status status={consent.status} reader="admin" />
              <span className="block small muted">
                since <DateTime value={consent.statusChangedAt} zone />
              </span>
            </>,
          ],
          [
            "Transaction status",
            consent.transactionStatus ? (
              <>
                {consent.transactionStatus}
                {consent.statusReason && <bdi>: {consent.statusReason}</bdi>}
              </>
            ) : null,
          ],
          ["Valid until", consent.validUntil ? formatDate(consent.validUntil, locale) : <span className="muted">—</span>],
          ["Asked", <DateTime value={consent.createdAt} zone />],
          ["Consent id", <code>{consent.id}</code>],
        ]}
      />
      <h3>Authorization details</h3>
      <ConsentDetails json={consent.authorizationDetails} />
      <ActionNotices action={action} />
    </Panel>
  );
}
