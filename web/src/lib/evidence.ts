/**
 * The evidence of a consent's signed authorizations (FAPI 2.0 Message Signing) as the
 * console shows and exports it (components/EvidencePanel.tsx).
 */
import type { AuthorizationEvidence } from "../api/admin";

/** An authorization's outcome in words: "Code issued", or "Refused: access_denied" for the error sent. */
export function describeOutcome(outcome: string): string {
  return outcome === "code" ? "Code issued" : `Refused: ${outcome}`;
}

/** The records oldest first (by answeredAt; records answered at the same time keep their order). */
export function oldestFirst(evidence: readonly AuthorizationEvidence[]): AuthorizationEvidence[] {
  return [...evidence].sort((a, b) => Date.parse(a.answeredAt) - Date.parse(b.answeredAt));
}

/** The export's file name: "consent-<id>-evidence.json", any character of the id a file name should not hold as "_". */
export function evidenceFileName(consentId: string): string {
  return `consent-${consentId.replace(/[^A-Za-z0-9._-]/g, "_")}-evidence.json`;
}

/**
 * The export of a consent's evidence, as JSON text: when it was made, the consent's facts, and
 * the records oldest first, each with the compact JWS strings exactly as the API gave them.
 */
export function evidenceExport(consent: Record<string, unknown>, evidence: readonly AuthorizationEvidence[], exportedAt: Date): string {
  const records = oldestFirst(evidence).map(({ id, answeredAt, clientId, outcome, requestObject, authorizationResponse }) => ({
    id,
    answeredAt,
    clientId,
    outcome,
    requestObject,
    authorizationResponse,
  }));
  return `${JSON.stringify({ exportedAt: exportedAt.toISOString(), consent, evidence: records }, null, 2)}\n`;
}

/** A PSD2 consent's authorization details for the export: the JSON the API's text holds, or that text when it is not JSON. */
export function detailsForExport(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return json;
  }
}
