import { useId } from "react";
import type { AuthorizationEvidence } from "../api/admin";
import { downloadFile } from "../lib/audit";
import { describeOutcome, evidenceExport, evidenceFileName, oldestFirst } from "../lib/evidence";
import { decodeJws, prettyJson } from "../lib/jws";
import { useAction } from "../lib/useGraphQL";
import { Facts } from "./Facts";
import { DateTime } from "./Format";
import { ActionNotices } from "./Notices";
import { Panel } from "./Panel";

/** A block of JSON or JWS text, wrapped so that the page never scrolls sideways. */
function CodeBlock({ text }: { text: string }) {
  return (
    <pre className="code-block">
      <code>{text}</code>
    </pre>
  );
}

/**
 * One signed message of an authorization: its JOSE header and payload decoded (not verified)
 * as JSON, then the compact JWS as received; "Not signed" when there is none.
 */
function SignedMessage({ title, jws }: { title: string; jws: string | null }) {
  const headingId = useId();
  const decoded = jws === null ? null : decodeJws(jws);
  return (
    <section className="signed-message" aria-labelledby={headingId}>
      <h4 id={headingId}>{title}</h4>
      {jws === null || decoded === null ? (
        <p className="muted">Not signed</p>
      ) : (
        <>
          {decoded.ok ? (
            <>
              <figure className="jose-part">
                <figcaption>JOSE header</figcaption>
                <CodeBlock text={prettyJson(decoded.header)} />
              </figure>
              <figure className="jose-part">
                <figcaption>Payload</figcaption>
                <CodeBlock text={prettyJson(decoded.payload)} />
              </figure>
            </>
          ) : (
            <p className="inline-alert">This message cannot be decoded: {decoded.reason}.</p>
          )}
          <details className="jws-compact">
            <summary>
              Compact JWS as received <span className="muted">({jws.length.toLocaleString()} characters)</span>
            </summary>
            <CodeBlock text={jws} />
          </details>
        </>
      )}
    </section>
  );
}

/** One authorization's evidence: when it was answered, by which client, its outcome and its two messages. */
function EvidenceRecord({ record }: { record: AuthorizationEvidence }) {
  const headingId = useId();
  return (
    <section className="evidence-record" aria-labelledby={headingId}>
      <h3 id={headingId}>
        Answered <DateTime value={record.answeredAt} zone />
      </h3>
      <Facts
        facts={[
          ["Client id", <code>{record.clientId}</code>],
          ["Outcome", describeOutcome(record.outcome)],
        ]}
      />
      <SignedMessage title="Signed request object (RFC 9101)" jws={record.requestObject} />
      <SignedMessage title="Signed authorization response (JARM)" jws={record.authorizationResponse} />
    </section>
  );
}

/**
 * The "Evidence" panel of a consent page (FAPI 2.0 Message Signing, non-repudiation): one
 * entry per authorization whose request or answer was signed, oldest first, and "Export
 * evidence (JSON)", which downloads consent-<id>-evidence.json with `consent` (the consent's
 * facts, as the page gives them) and the records, the compact JWS strings exactly as received.
 */
export function EvidencePanel({ consentId, consent, evidence }: { consentId: string; consent: Record<string, unknown>; evidence: readonly AuthorizationEvidence[] }) {
  const action = useAction();
  const records = oldestFirst(evidence);

  function exportEvidence() {
    void action.run(async () => {
      const name = evidenceFileName(consentId);
      downloadFile(name, "application/json", evidenceExport(consent, records, new Date()));
      return `Downloaded ${name} with ${records.length} ${records.length === 1 ? "record" : "records"}.`;
    }, "export");
  }

  const { busy, disabled } = action.button("export");
  return (
    <Panel
      title="Evidence"
      actions={
        <button type="button" className="button secondary small" disabled={disabled} aria-busy={busy || undefined} onClick={exportEvidence}>
          Export evidence (JSON)
        </button>
      }
    >
      <p className="muted">
        The signed messages of the authorizations behind this consent (FAPI 2.0 Message Signing): the request object as the app signed it (RFC 9101) and the
        authorization response as Tollgate signed it (JARM), exactly as they were sent, kept for the consent's lifetime and the bank's evidence retention after it.
      </p>
      <ActionNotices action={action} />
      {records.length === 0 ? (
        <p className="empty">No signed request or response: this consent was authorized without FAPI message signing.</p>
      ) : (
        <>
          <p className="hint">Each message is decoded here for reading, not verified: its signature is checked with the app's registered keys or Tollgate's JWK Set.</p>
          {records.map((record) => (
            <EvidenceRecord key={record.id} record={record} />
          ))}
        </>
      )}
    </Panel>
  );
}
