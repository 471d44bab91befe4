import type { AppRegistration as Registration, Status } from "../../api/admin";
import { ExactTime } from "../../components/ExactTime";
import { Facts } from "../../components/Facts";
import { Badge } from "../../components/Format";
import { Panel } from "../../components/Panel";
import { appStatusText } from "../../lib/apps";
import { ncaText, organizationText, roleText, statementExpired } from "../../lib/registration";

/** A TPP's PSD2 roles in words, one a line; "none" without any. */
export function RoleList({ roles }: { roles: readonly string[] }) {
  if (roles.length === 0) return <span className="muted">none</span>;
  return (
    <ul className="role-list">
      {roles.map((role) => (
        <li key={role}>{roleText(role)}</li>
      ))}
    </ul>
  );
}

/** An app's status as a badge: "pending approval" (a registration awaiting the bank's approval) in the warning colour. */
export function AppStatusBadge({ status }: { status: Status }) {
  return <Badge tone={status === "pending" ? "warn" : undefined}>{appStatusText(status)}</Badge>;
}

/** The statement's expiry: its time, "expired" once past; "No expiry" for a statement without `exp`. */
function StatementExpiry({ expiresAt }: { expiresAt: string | null }) {
  if (expiresAt === null) return <span className="muted">No expiry</span>;
  return (
    <>
      <ExactTime value={expiresAt} /> {statementExpired(expiresAt, new Date()) && <Badge tone="bad">expired</Badge>}
    </>
  );
}

/**
 * "Registration (TPP)": how the app registered itself (RFC 7591): its software, the directory's
 * organization, the PSD2 roles in words, the registering eIDAS certificate's organizationIdentifier
 * and national competent authority when it presented one, and the times of the registration and
 * of its software statement.
 */
export function AppRegistration({ registration: r }: { registration: Registration }) {
  return (
    <Panel title="Registration (TPP)">
      <p className="muted small">This app registered itself with a software statement from a trusted directory (dynamic client registration, RFC 7591).</p>
      <Facts
        facts={[
          ["Software id", <code>{r.softwareId}</code>],
          ["Software version", r.softwareVersion],
          ["Directory organization", organizationText(r.organizationName, r.organizationId)],
          [
            "PSD2 roles",
            <RoleList roles={r.roles} />,
          ],
          ["Certificate organizationIdentifier", r.certificateOrganizationIdentifier ? <code>{r.certificateOrganizationIdentifier}</code> : null],
          ["National competent authority", ncaText(r.ncaName, r.ncaId)],
          ["Registered", <ExactTime value={r.registeredAt} />],
          ["Statement issued", <ExactTime value={r.statementIssuedAt} />],
          ["Statement expires", <StatementExpiry expiresAt={r.statementExpiresAt} />],
        ]}
      />
    </Panel>
  );
}
