/**
 * The pages: sign-in, consent, and the error page. Plain HTML forms (no script needed), each
 * field with its label, the choices in fieldsets with a legend, errors announced (role=alert).
 * What the TPP wrote (its name, a creditor's name, a reference) is isolated with <bdi>, so
 * right-to-left text cannot reorder an amount or an IBAN next to it.
 */
import { choicesNeeded, describeAccount, describeAccountAccess, describeScope, formatAmount, formatIban, isAccountAccess, isPayment, summary } from "./describe.js";
import { html, page, type Html } from "./html.js";
import type { ConsentRequest, LoginRequest } from "./tollgate.js";

/** The TPP as the pages name it, and its operator. */
function tpp(request: LoginRequest): { name: string; operator: Html } {
  const name = request.client.name || request.client.client_id;
  return { name, operator: request.client.organization ? html`<p class="muted">Operated by <bdi>${request.client.organization}</bdi></p>` : html`` };
}

function errorBox(error: string | undefined): Html {
  return error ? html`<p class="error" role="alert" id="form-error">${error}</p>` : html``;
}

/** The sign-in page of a login request. */
export function loginPage(
  request: LoginRequest,
  form: { csrf: string; username?: string; error?: string },
  bankName: string,
): string {
  const { name, operator } = tpp(request);
  const asks = summary(request.requested_scope, request.authorization_details);
  const username = form.username ?? request.login_hint ?? "";
  return page(
    "Sign in",
    html`<h1>Sign in to continue to <bdi>${name}</bdi></h1>
${operator}
${asks.length > 0 ? html`<p><bdi>${name}</bdi> asks to:</p><ul>${asks.map((line) => html`<li><bdi>${line}</bdi></li>`)}</ul>` : html``}
${errorBox(form.error)}
<form method="post" action="/login">
<input type="hidden" name="login_challenge" value="${request.challenge}">
<input type="hidden" name="csrf" value="${form.csrf}">
<label for="username">Username</label>
<input id="username" name="username" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${username}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<label for="otp">One-time code</label>
<input id="otp" name="otp" type="text" inputmode="numeric" autocomplete="one-time-code" aria-describedby="otp-hint"${request.sca_required ? html` required` : html``}>
<p class="hint" id="otp-hint">${
      request.sca_required
        ? "Required: the code from your banking app. This request needs strong customer authentication."
        : "Optional: the code from your banking app."
    }</p>
<div class="actions">
<button class="primary" type="submit" name="action" value="sign-in">Sign in</button>
<button class="secondary" type="submit" name="action" value="cancel" formnovalidate>Cancel</button>
</div>
</form>`,
    bankName,
  );
}

/** What the PSU chose on the consent form (kept when the page is shown again with an error). */
export interface ConsentChoice {
  scopes: readonly string[];
  accounts: readonly string[];
  debtorAccount: string | undefined;
}

/** The consent page of a consent request. `choice` undefined: first shown (every scope checked). */
export function consentPage(request: ConsentRequest, form: { csrf: string; choice?: ConsentChoice; error?: string }, bankName: string): string {
  const { name, operator } = tpp(request);
  const details = request.authorization_details ?? [];
  const payments = details.filter(isPayment);
  const access = details.filter(isAccountAccess);
  const needs = choicesNeeded(details);
  const choice = form.choice;
  const checked = (on: boolean) => (on ? html` checked` : html``);
  const heading =
    payments.length === 1 ? "asks you to approve a payment" : payments.length > 1 ? `asks you to approve ${payments.length} payments` : "asks for access to your accounts";
  const noAccounts = html`<p>You have no account that can be used for this.</p>`;

  return page(
    "Consent",
    html`<h1><bdi>${name}</bdi> ${heading}</h1>
${operator}
${request.subject ? html`<p class="muted">Signed in as <bdi>${request.subject}</bdi></p>` : html``}
${errorBox(form.error)}
<form method="post" action="/consent">
<input type="hidden" name="consent_challenge" value="${request.challenge}">
<input type="hidden" name="csrf" value="${form.csrf}">
${
  request.requested_scope.length > 0
    ? html`<fieldset><legend>Allow <bdi>${name}</bdi> to</legend>
${request.requested_scope.map(
  (scope, i) => html`<label for="scope-${i}"><input id="scope-${i}" type="checkbox" name="scope" value="${scope}"${checked(choice ? choice.scopes.includes(scope) : true)}> ${describeScope(scope)}</label>`,
)}
</fieldset>`
    : html``
}
${payments.map(
  (p) => html`<section class="payment">
<p><strong>Pay ${formatAmount(p.instructedAmount)} to <bdi>${p.creditorName}</bdi></strong></p>
<p>IBAN ${formatIban(p.creditorAccount.iban)}</p>
${p.remittanceInformationUnstructured ? html`<p>Reference: <bdi>${p.remittanceInformationUnstructured}</bdi></p>` : html``}
${p.debtorAccount ? html`<p>From: ${describeAccount(p.debtorAccount.iban, request.accounts)}</p>` : html``}
</section>`,
)}
${
  needs.debtorAccount
    ? html`<fieldset><legend>Pay from</legend>
${request.accounts.length === 0 ? noAccounts : html``}
${request.accounts.map(
  (a, i) =>
    html`<label for="debtor-${i}"><input id="debtor-${i}" type="radio" name="debtor_account" value="${a.iban}" required${checked(choice?.debtorAccount === a.iban)}> ${a.name}, ${formatIban(a.iban)}</label>`,
)}
</fieldset>`
    : html``
}
${access.map((d) => html`<p>${describeAccountAccess(d, request.accounts)}</p>`)}
${
  needs.accounts
    ? html`<fieldset><legend>Accounts to share</legend>
${request.accounts.length === 0 ? noAccounts : html``}
${request.accounts.map(
  (a, i) => html`<label for="account-${i}"><input id="account-${i}" type="checkbox" name="account" value="${a.iban}"${checked(choice?.accounts.includes(a.iban) ?? false)}> ${a.name}, ${formatIban(a.iban)}</label>`,
)}
</fieldset>`
    : html``
}
<div class="actions">
<button class="primary" type="submit" name="action" value="allow">Allow</button>
<button class="secondary" type="submit" name="action" value="deny" formnovalidate>Deny</button>
</div>
</form>`,
    bankName,
  );
}

/** A page for a request that cannot go on (unknown or ended challenge, expired form, Tollgate unavailable). */
export function errorPage(title: string, message: string, bankName: string): string {
  return page(
    title,
    html`<h1>${title}</h1>
<p>${message}</p>
<p>Go back to the app you came from and start again.</p>`,
    bankName,
  );
}
