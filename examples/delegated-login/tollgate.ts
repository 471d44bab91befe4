/**
 * Tollgate's delegation API (`/delegation/v1`) as this application calls it: read a login or
 * consent request by its challenge, and accept or reject it. Every call carries a bearer token
 * of the bank's admin client (client credentials at Tollgate's token endpoint), cached until
 * shortly before it expires and fetched again once when Tollgate answers 401.
 *
 * Challenges are passed through as they came (URL-encoded as a path segment, never changed).
 */

/** Where Tollgate is and who this application is there. */
export interface TollgateSettings {
  /** Tollgate's address, e.g. http://localhost:3000 (no trailing slash). */
  url: string;
  clientId: string;
  clientSecret: string;
}

/** An account reference of an authorization detail. */
export interface AccountReference {
  iban: string;
}

/** A payment the TPP asks the PSU to approve (RFC 9396 `payment_initiation`). */
export interface PaymentInitiation {
  type: "payment_initiation";
  instructedAmount: { currency: string; amount: string };
  creditorName: string;
  creditorAccount: AccountReference;
  remittanceInformationUnstructured?: string;
  /** Absent: the PSU chooses the account to pay from. */
  debtorAccount?: AccountReference;
}

/** Access to account data the TPP asks for (RFC 9396 `account_information`). */
export interface AccountInformation {
  type: "account_information";
  /** No `accounts` and no `allAccounts`: the PSU chooses the accounts. */
  access: { accounts?: AccountReference[]; allAccounts?: true; balances?: boolean; transactions?: boolean };
  validUntil: string;
  frequencyPerDay: number;
  recurringIndicator: boolean;
}

export type AuthorizationDetail = PaymentInitiation | AccountInformation;

/** `GET /delegation/v1/login-requests/{challenge}`. */
export interface LoginRequest {
  challenge: string;
  client: { client_id: string; name: string; organization: string };
  requested_scope: string[];
  authorization_details: AuthorizationDetail[] | null;
  /** The PSU must be signed in with strong customer authentication: accept only with `acr` {@link ACR_SCA}. */
  sca_required: boolean;
  login_hint: string | null;
  ui_locales: string[];
  expires_at: string;
}

/** A payment account of the PSU, as Tollgate's account directory lists it. */
export interface PsuAccount {
  iban: string;
  name: string;
  currency: string;
}

/** `GET /delegation/v1/consent-requests/{challenge}`: the login request's fields, and who signed in. */
export interface ConsentRequest extends LoginRequest {
  subject: string | null;
  amr: string[];
  auth_time: number | null;
  accounts: PsuAccount[];
}

/** Where the browser goes next: a URL, or for `response_mode=form_post.jwt` a form to post (JARM §2.3.3). */
export type Answer = { redirect_to: string } | { form_post: { action: string; response: string } };

/** The `acr` of PSD2 strong customer authentication at Tollgate. */
export const ACR_SCA = "urn:tollgate:sca";
/** The `acr` of a password alone. */
export const ACR_PASSWORD = "urn:tollgate:pwd";

/** Tollgate refused a call (an RFC 6749 error body), or could not be reached. */
export class TollgateError extends Error {
  constructor(
    /** The HTTP status; 502 when Tollgate could not be reached or answered something unexpected. */
    readonly status: number,
    /** The OAuth error code, e.g. `not_found` (the challenge is unknown, answered or expired), `invalid_request`. */
    readonly error: string,
    readonly description: string,
  ) {
    super(`Tollgate answered ${status} ${error}: ${description}`);
  }
}

/** Longest wait for one call to Tollgate. */
const TIMEOUT_MS = 10_000;
/** A cached token is renewed this long before it expires. */
const EXPIRY_MARGIN_MS = 30_000;

export class Tollgate {
  private token: { value: string; expiresAt: number } | undefined;
  private fetching: Promise<string> | undefined;

  constructor(private readonly settings: TollgateSettings) {}

  readLoginRequest(challenge: string): Promise<LoginRequest> {
    return this.call("GET", `/login-requests/${encodeURIComponent(challenge)}`) as Promise<LoginRequest>;
  }

  /** Accepts a login: `subject` signed in with `acr` and `amr` at `auth_time` (seconds since the epoch). */
  acceptLogin(challenge: string, body: { subject: string; acr: string; amr: string[]; auth_time: number }): Promise<Answer> {
    return this.call("POST", `/login-requests/${encodeURIComponent(challenge)}/accept`, body) as Promise<Answer>;
  }

  rejectLogin(challenge: string, body: { error: "access_denied" | "login_required"; error_description: string }): Promise<Answer> {
    return this.call("POST", `/login-requests/${encodeURIComponent(challenge)}/reject`, body) as Promise<Answer>;
  }

  readConsentRequest(challenge: string): Promise<ConsentRequest> {
    return this.call("GET", `/consent-requests/${encodeURIComponent(challenge)}`) as Promise<ConsentRequest>;
  }

  /** Accepts a consent: the scopes granted (only narrowed), and the accounts the PSU chose (IBANs). */
  acceptConsent(challenge: string, body: { grant_scope: string[]; accounts?: string[]; debtor_account?: string }): Promise<Answer> {
    return this.call("POST", `/consent-requests/${encodeURIComponent(challenge)}/accept`, body) as Promise<Answer>;
  }

  rejectConsent(challenge: string): Promise<Answer> {
    return this.call("POST", `/consent-requests/${encodeURIComponent(challenge)}/reject`, {}) as Promise<Answer>;
  }

  /** One call of the delegation API; on 401 invalid_token once more with a new token. */
  private async call(method: "GET" | "POST", path: string, body?: unknown): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const token = await this.adminToken();
      const res = await this.fetch(`${this.settings.url}/delegation/v1${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, Accept: "application/json", ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      try {
        return await answerOf(res);
      } catch (error) {
        // The cached token was revoked or expired early: once more with a new one.
        if (attempt > 0 || !(error instanceof TollgateError && error.status === 401 && error.error === "invalid_token")) throw error;
        this.token = undefined;
      }
    }
  }

  /** The admin client's access token, from the cache while it lives (one request at a time fetches a new one). */
  private async adminToken(): Promise<string> {
    if (this.token && Date.now() < this.token.expiresAt) return this.token.value;
    this.fetching ??= this.fetchToken().finally(() => (this.fetching = undefined));
    return this.fetching;
  }

  private async fetchToken(): Promise<string> {
    const basic = Buffer.from(`${encodeURIComponent(this.settings.clientId)}:${encodeURIComponent(this.settings.clientSecret)}`).toString("base64");
    const res = await this.fetch(`${this.settings.url}/oauth2/v1/token`, {
      method: "POST",
      headers: { Authorization: `Basic ${basic}`, "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body: new URLSearchParams({ grant_type: "client_credentials", scope: "admin" }).toString(),
    });
    const body = (await answerOf(res)) as { access_token?: unknown; expires_in?: unknown };
    // Tollgate's apigee token profile gives expires_in as a string, RFC 6749's as a number.
    const expiresIn = Number(body.expires_in);
    if (typeof body.access_token !== "string" || !Number.isFinite(expiresIn)) throw new TollgateError(502, "bad_token_response", "the token endpoint answered without access_token or expires_in");
    this.token = { value: body.access_token, expiresAt: Date.now() + expiresIn * 1000 - EXPIRY_MARGIN_MS };
    return body.access_token;
  }

  private async fetch(url: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, { ...init, redirect: "error", signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (error) {
      throw new TollgateError(502, "unreachable", `Tollgate could not be reached: ${(error as Error).message}`);
    }
  }
}

/** The JSON body of a 2xx answer. @throws TollgateError with the RFC 6749 error of any other. */
async function answerOf(res: Response): Promise<unknown> {
  const text = await res.text();
  let body: { error?: unknown; error_description?: unknown } | undefined;
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = undefined;
  }
  if (res.ok && body !== undefined) return body;
  if (res.ok) throw new TollgateError(502, "bad_response", `Tollgate answered ${res.status} without JSON`);
  const error = typeof body?.error === "string" ? body.error : "server_error";
  const description = typeof body?.error_description === "string" ? body.error_description : `HTTP ${res.status}`;
  throw new TollgateError(res.status >= 500 ? 502 : res.status, error, description);
}
