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

/**
 * One of the PSU's accounts as a choice: a checkbox or radio button named `name`, labelled by
 * the account's name and described by its IBAN in groups of four and its currency, which tell
 * apart accounts of the same name. `id` is the input's id (the hint's is `${id}-hint`).
 */
function AccountOption({
  id,
  type,
  name,
  account,
  checked,
  required,
  disabled,
  onChange,
}: {
  id: string;
  type: "checkbox" | "radio";
  name: string;
  account: PsuAccount;
  checked: boolean;
  required?: boolean;
  disabled: boolean;
  onChange: (checked: boolean) => void;
}) {
  return (
    <div className="check">
      <input
        id={id}
        type={type}
        name={name}
        value={account.iban}
        required={required}
        checked={checked}
        disabled={disabled}
        aria-describedby={`${id}-hint`}
        onChange={(e) => onChange(e.target.checked)}
      />
      <label htmlFor={id}>{account.name}</label>
      <span id={`${id}-hint`} className="hint check-hint">
        {formatIban(account.iban)} · {account.currency}
      </span>
    </div>
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
            <AccountOption key={account.iban} id={`${id}-account-${i}`} type="checkbox" name="account" account={account}
              checked={choice.accounts.has(account.iban)} disabled={busy} onChange={(on) => onChange({ ...choice, accounts: toggled(choice.accounts, account.iban, on) })} />
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
            <AccountOption key={account.iban} id={`${id}-debtor-${i}`} type="radio" name="debtorAccount" account={account}
              required checked={choice.debtorAccount === account.iban} disabled={busy} onChange={() => onChange({ ...choice, debtorAccount: account.iban })} />
          ))}
        </fieldset>
      )}
      <p className="muted small">You can withdraw this consent at any time on your Account page.</p>
    </section>
  );
}
