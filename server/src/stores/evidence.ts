/**
 * Evidence of signed authorization requests and responses (FAPI 2.0 Message Signing §1:
 * non-repudiation): what a TPP signed when it asked (a request object, RFC 9101) and what this
 * server signed when it answered (JARM), kept with the consent the PSU answered for the
 * consent's lifetime and the bank's retention after it (maintenance/purge.ts).
 */

/** One answered authorization request, as kept. */
export interface EvidenceRecord {
  id: string;
  appId: string;
  /** The consumer key the request named. */
  clientId: string;
  /** The PSU who answered. */
  userId: string;
  /** The PSD2 consent authorized; null when none (or deleted since). */
  psd2ConsentId: string | null;
  /** The PSU's consent to the app's scopes the authorization remembered; null when none (or deleted since). */
  consentId: string | null;
  /** The signed request object as received (compact JWS); null when the request was not signed. */
  requestObject: string | null;
  /** The signed authorization response as sent (compact JWS); null when it was sent unsigned. */
  authorizationResponse: string | null;
  /** `code`, or the error sent (RFC 6749 §4.1.2.1). */
  outcome: string;
  createdAt: Date;
}

/** Evidence to keep: the record without its id and its scope consent, which {@link EvidenceStore.insert} finds. */
export type NewEvidence = Omit<EvidenceRecord, "id" | "consentId">;

export interface EvidenceStore {
  /**
   * Keeps `evidence` with its PSD2 consent, or, without one, with the PSU's live consent to
   * the app's scopes if there is one.
   */
  insert(evidence: NewEvidence): Promise<void>;
  /** The evidence of a PSD2 consent, oldest first. */
  ofPsd2Consent(psd2ConsentId: string): Promise<EvidenceRecord[]>;
  /** The evidence of a PSU's consent to an app's scopes, oldest first. */
  ofConsent(consentId: string): Promise<EvidenceRecord[]>;
  /**
   * Deletes up to `limit` records past retention: made before `before`, and whose consent
   * ended before `before` (a PSD2 consent in a final status since then, or valid until then;
   * a scope consent revoked since then) or is gone or never was.
   * @returns how many.
   */
  deleteEnded(before: Date, limit: number): Promise<number>;
}
