/**
 * The shapes of RFC 9396 authorization details as Tollgate stores them (JSON text on PSD2
 * consents, codes and tokens) and the SPA shows them: the two PSD2 types, payment_initiation
 * and account_information. Their rules live in consents/authorization-details.ts.
 */

/** An account reference: an IBAN in electronic format (no spaces, upper case), ISO 13616. */
export interface AccountReference {
  iban: string;
}

/** A decimal string amount (never a float) with an ISO 4217 currency code. */
export interface Amount {
  currency: string;
  amount: string;
}

/** One credit transfer the PSU authorizes (Berlin Group sepa-credit-transfers fields). */
export interface PaymentInitiation {
  type: "payment_initiation";
  instructedAmount: Amount;
  /** 1..70 characters, clean text (no control characters). */
  creditorName: string;
  creditorAccount: AccountReference;
  /** 1..140 characters, clean text. */
  remittanceInformationUnstructured?: string;
  /** Given by the TPP, or chosen by the PSU at consent. */
  debtorAccount?: AccountReference;
}

/** Access to account data the PSU authorizes. */
export interface AccountInformation {
  type: "account_information";
  access: {
    /** 1..20 distinct; absent: the PSU picks at consent (unless allAccounts). */
    accounts?: AccountReference[];
    /** Every account of the PSU (exclusive with accounts in a request). */
    allAccounts?: true;
    /** Read balances. */
    balances?: boolean;
    /** Read transactions. */
    transactions?: boolean;
  };
  /** YYYY-MM-DD, today .. today + 180 days (UTC). */
  validUntil: string;
  /** Integer 1..4. */
  frequencyPerDay: number;
  recurringIndicator: boolean;
}

/** One entry of the `authorization_details` array. */
export type AuthorizationDetail = PaymentInitiation | AccountInformation;
