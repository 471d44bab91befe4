import { useId } from "react";
import {
  accountsToChoose,
  formatIban,
  isPayment,
  localToday,
  needsDebtorAccount,
  type AuthorizationDetail,
  type ConsentChoice,
  type PsuAccount,
} from "../lib/authorization-details";
import { toggled } from "../lib/sets";
import { AuthorizationDetailsList } from "./AuthorizationDetailsList";

/** An account's IBAN in groups of four and its currency, which tell apart accounts of the same name. */
function AccountHint({ id, account }: { id: string; account: PsuAccount }) {
  return (
    <span id={id} className="hint check-hint">
      {formatIban(account.iban)} · {account.currency}
    </span>
  );
}

/**
 * The consent page's part for RFC 9396 authorization details: what the TPP asks for in plain
 * words (how long account access lasts counted from today), then the PSU's choices — the
 * accounts to share when an account access names none (checkboxes, at least one), the account
 * to pay from when payments name none (radio buttons) — and that consent can be withdrawn.
 * The consent form holds the choices and sends them with the decision (choiceDecision).
 * The app's name is the TPP's text: isolated (`<bdi>`) wherever it is named.
 */
export function AuthorizationDetailsSection({
  clientName,
  details,
  accounts,
  choice,
  onChange,
  busy,
  locale,
}: {
  clientName: string;
  /** Of the amounts and dates (lib/locale.ts). */
  locale: string;
  details: readonly AuthorizationDetail[];
  /** The PSU's accounts. */
  accounts: readonly PsuAccount[];
  choice: ConsentChoice;
  onChange: (choice: ConsentChoice) => void;
  busy: boolean;
}) {
  const id = useId();
  const payments = details.filter(isPayment).length;
  return (
    <section className="details-section" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`} className="details-heading">
        <bdi>{clientName}</bdi> asks to:
      </h2>
      <AuthorizationDetailsList details={details} accounts={accounts} today={localToday()} locale={locale} />
      {accountsToChoose(details) && (
        <fieldset className="fieldset" aria-describedby={`${id}-accounts-hint`}>
          <legend>Accounts to share</legend>
          <p id={`${id}-accounts-hint`} className="hint">
            {accounts.length > 0 ? (
              <>
                Choose at least one account <bdi>{clientName}</bdi> may read.
              </>
            ) : (
              "You have no accounts to share."
            )}
          </p>
          {accounts.map((account, i) => (
            <div key={account.iban} className="check">
              <input
                id={`${id}-account-${i}`}
                type="checkbox"
                name="account"
                value={account.iban}
                checked={choice.accounts.has(account.iban)}
                disabled={busy}
                aria-describedby={`${id}-account-${i}-hint`}
                onChange={(e) => onChange({ ...choice, accounts: toggled(choice.accounts, account.iban, e.target.checked) })}
              />
              <label htmlFor={`${id}-account-${i}`}>{account.name}</label>
              <AccountHint id={`${id}-account-${i}-hint`} account={account} />
            </div>
          ))}
        </fieldset>
      )}
      {needsDebtorAccount(details) && (
        <fieldset className="fieldset" aria-describedby={`${id}-debtor-hint`}>
          <legend>Pay from</legend>
          <p id={`${id}-debtor-hint`} className="hint">
            {accounts.length === 0
              ? "You have no account to pay from."
              : `Choose the account ${payments === 1 ? "the payment is" : "the payments are"} made from.`}
          </p>
          {accounts.map((account, i) => (
            <div key={account.iban} className="check">
              <input
                id={`${id}-debtor-${i}`}
                type="radio"
                name="debtorAccount"
                value={account.iban}
                required
                checked={choice.debtorAccount === account.iban}
                disabled={busy}
                aria-describedby={`${id}-debtor-${i}-hint`}
                onChange={() => onChange({ ...choice, debtorAccount: account.iban })}
              />
              <label htmlFor={`${id}-debtor-${i}`}>{account.name}</label>
              <AccountHint id={`${id}-debtor-${i}-hint`} account={account} />
            </div>
          ))}
        </fieldset>
      )}
      <p className="muted small">You can withdraw this consent at any time on your Account page.</p>
    </section>
  );
}
