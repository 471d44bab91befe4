import { Link } from "react-router";
import type { Psd2Consent } from "../../api/admin";
import { Psd2Status } from "../../components/AuthorizationDetailsList";
import type { Column } from "../../components/DataTable";
import { formatDate } from "../../lib/authorization-details";
import { KIND_NAMES } from "../../lib/psd2-consents";
import { routes } from "../../lib/routes";

const dash = <span className="muted">—</span>;

/**
 * The columns of a short list of PSD2 consents (a user's panel, the console's search): the
 * consent id linked to its page, the PSU when `withPsu`, the TPP's app, the kind, the status and
 * the last day of validity.
 */
export function psd2ConsentColumns({ withPsu }: { withPsu: boolean }): Column<Psd2Consent>[] {
  const locale = navigator.language;
  return [
    {
      header: "Consent",
      rowHeader: true,
      cell: (c) => (
        <Link to={routes.psd2Consent(c.id)}>
          <code>{c.id}</code>
        </Link>
      ),
    },
    ...(withPsu ? [{ header: "User", cell: (c: Psd2Consent) => c.username ?? dash }] : []),
    { header: "App (TPP)", cell: (c) => <bdi>{c.appName}</bdi> },
    { header: "Type", cell: (c) => KIND_NAMES[c.kind] ?? c.kind },
    { header: "Status", cell: (c) => <Psd2Status status={c.status} reader="admin" /> },
    { header: "Valid until", cell: (c) => (c.validUntil ? formatDate(c.validUntil, locale) : dash) },
  ];
}
