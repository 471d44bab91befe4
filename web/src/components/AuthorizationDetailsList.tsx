import {
  describeAccountAccess,
  describeBatch,
  describePayment,
  describeStatus,
  isAccountAccess,
  isPayment,
  readAuthorizationDetails,
  statusTone,
  type AuthorizationDetail,
  type PaymentDescription,
  type PsuAccount,
} from "../lib/authorization-details";
import { Badge } from "./Format";

/**
 * One payment: "Pay <amount> to <payee>", then the payee's IBAN, the account paid from and the
 * reference, each on a line of its own. The payee's name and the reference are the TPP's text,
 * each isolated (`<bdi>`): right-to-left letters in them cannot reorder the rest of the line,
 * and no IBAN shares the payee's line, where a name could pass for one. The IBAN (ISO 13616
 * print format) is always left to right.
 */
function Payment({ description }: { description: PaymentDescription }) {
  return (
    <>
      Pay {description.amount} to <bdi>{description.creditorName}</bdi>
      <span className="block">
        IBAN <span dir="ltr">{description.creditorIban}</span>
      </span>
      {description.debtorAccount && <span className="block">From {description.debtorAccount}</span>}
      {description.reference && (
        <span className="block muted">
          Reference: <bdi>{description.reference}</bdi>
        </span>
      )}
    </>
  );
}

/**
 * RFC 9396 authorization details in plain words (lib/authorization-details.ts), as a list: a
 * payment, or a batch of payments (count and totals, then each payment), and account access.
 * Amounts and dates follow `locale`, by default the browser's language.
 *
 * @param locale - a BCP 47 tag: the consent page passes the request's ui_locales' (lib/locale.ts).
 * @param accounts - the PSU's accounts, which name the IBANs they know (else IBANs are shown).
 * @param today - YYYY-MM-DD: account access also says for how many days it lasts from then.
 */
export function AuthorizationDetailsList({
  details,
  accounts = [],
  today,
  label,
  locale = navigator.language,
}: {
  details: readonly AuthorizationDetail[];
  locale?: string;
  accounts?: readonly PsuAccount[];
  today?: string;
  /** The list's accessible name, when no heading names it. */
  label?: string;
}) {
  const payments = details.filter(isPayment);
  const batch = payments.length > 1 ? describeBatch(payments, accounts, locale) : null;
  return (
    <ul className="details" aria-label={label}>
      {batch ? (
        <li>
          {batch.text}
          <ol>
            {batch.payments.map((payment, i) => (
              <li key={i}>
                <Payment description={payment} />
              </li>
            ))}
          </ol>
        </li>
      ) : (
        payments.map((payment, i) => (
          <li key={i}>
            <Payment description={describePayment(payment, accounts, locale)} />
          </li>
        ))
      )}
      {details.filter(isAccountAccess).map((access, i) => (
        <li key={`access-${i}`}>{describeAccountAccess(access, accounts, locale, today)}</li>
      ))}
    </ul>
  );
}

/** A PSD2 consent's authorization details (JSON text from the admin API) in plain words, or a note that they cannot be shown. */
export function ConsentDetails({ json, label }: { json: string; label?: string }) {
  const details = readAuthorizationDetails(json);
  if (!details) return <p className="muted small">The details of this consent cannot be shown.</p>;
  return <AuthorizationDetailsList details={details} label={label} />;
}

/** A PSD2 consent's status in words as a coloured badge, worded for the PSU or for an administrator. */
export function Psd2Status({ status, reader }: { status: string; reader: "psu" | "admin" }) {
  return <Badge tone={statusTone(status)}>{describeStatus(status, reader)}</Badge>;
}
