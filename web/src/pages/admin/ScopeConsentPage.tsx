import { Link, useParams } from "react-router";
import { CONSENT, type ConsentDetail } from "../../api/admin";
import { AdminPage } from "../../components/AdminPage";
import { EvidencePanel } from "../../components/EvidencePanel";
import { Facts } from "../../components/Facts";
import { Badge, Chips, DateTime } from "../../components/Format";
import { ObjectNotShown } from "../../components/ObjectNotShown";
import { Panel } from "../../components/Panel";
import { routes } from "../../lib/routes";
import { useQuery } from "../../lib/useGraphQL";

/** The consent's facts as the evidence export holds them. */
function exportedFacts(c: ConsentDetail): Record<string, unknown> {
  return {
    type: "consent",
    id: c.id,
    app: { id: c.app.id, name: c.app.name, organizationName: c.app.developer.organization.name },
    user: { id: c.user.id, username: c.user.username },
    scopes: c.scopes,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    revokedAt: c.revokedAt,
  };
}

/** /admin/consents/:id: one user's consent to an app's scopes, revoked ones too, and the evidence of its signed authorizations. */
export function ScopeConsentPage() {
  const { id = "" } = useParams();
  const query = useQuery(CONSENT, { id });
  const consent = query.data?.consent;

  if (!consent) return <ObjectNotShown query={query} title="Consent" noun="Consent" breadcrumb={<Link to={routes.users()}>← Users</Link>} />;
  const { app, user } = consent;
  return (
    <AdminPage
      title={`Consent of ${user.username} for ${app.name}`}
      breadcrumb={<Link to={routes.users({ search: user.username, user: user.id })}>← Factors, tokens and consents of {user.username}</Link>}
    >
      <Panel title="Consent">
        <Facts
          facts={[
            ["App", <Link to={routes.appDetail(app.id)}>{app.name}</Link>],
            ["Organization", app.developer.organization.name],
            ["User", user.username],
            ["Status", <Badge>{consent.revokedAt ? "revoked" : "active"}</Badge>],
            ["Scopes", <Chips items={consent.scopes} />],
            ["Granted", <DateTime value={consent.createdAt} zone />],
            ["Updated", <DateTime value={consent.updatedAt} zone />],
            ["Revoked", consent.revokedAt ? <DateTime value={consent.revokedAt} zone /> : null],
            ["Consent id", <code>{consent.id}</code>],
          ]}
        />
      </Panel>
      <EvidencePanel consentId={consent.id} consent={exportedFacts(consent)} evidence={consent.evidence} />
    </AdminPage>
  );
}
