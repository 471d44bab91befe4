import { useId, useState } from "react";
import {
  REVOKE_CREDENTIAL,
  ROTATE_CREDENTIAL,
  SET_CREDENTIAL_PRODUCT_STATUS,
  type AppDetail,
  type Credential,
  type CredentialProduct,
  type IssuedCredential,
  type ProductStatus,
} from "../../api/admin";
import { graphql } from "../../api/graphql";
import { ConfirmButton } from "../../components/ConfirmButton";
import { Badge, DateTime } from "../../components/Format";
import { ActionNotices } from "../../components/Notices";
import { Panel } from "../../components/Panel";
import { SecretPanel } from "../../components/SecretPanel";
import { useAction } from "../../lib/useGraphQL";

/**
 * The app's credentials (part of /admin/apps/:id): their API products (approve / revoke),
 * "Rotate" (the new secret is shown once) and "Revoke credential".
 *
 * @param onRotated - reloads the app, which now has one more credential.
 */
export function AppCredentials({ app, onChange, onRotated }: { app: AppDetail; onChange: (app: AppDetail) => void; onRotated: () => void }) {
  const [issued, setIssued] = useState<IssuedCredential | null>(null);

  function replace(credential: Credential) {
    onChange({ ...app, credentials: app.credentials.map((c) => (c.id === credential.id ? credential : c)) });
  }

  return (
    <Panel title="Credentials">
      {issued && <SecretPanel issued={issued} title="Credential rotated: the new consumer key and secret" onDone={() => setIssued(null)} />}
      {app.credentials.length === 0 ? (
        <p className="empty">This app has no credentials.</p>
      ) : (
        app.credentials.map((credential) => (
          <CredentialCard
            key={credential.id}
            credential={credential}
            onChange={replace}
            onRotated={(next) => {
              setIssued(next);
              onRotated();
            }}
          />
        ))
      )}
    </Panel>
  );
}

function CredentialCard({
  credential,
  onChange,
  onRotated,
}: {
  credential: Credential;
  onChange: (credential: Credential) => void;
  onRotated: (issued: IssuedCredential) => void;
}) {
  const action = useAction();
  const headingId = useId();
  const graceId = useId();
  const [grace, setGrace] = useState("0");
  const approved = credential.status === "approved";
  const key = credential.consumerKey;

  function setProductStatus(item: CredentialProduct, status: ProductStatus) {
    void action.run(async () => {
      const { setCredentialProductStatus } = await graphql(SET_CREDENTIAL_PRODUCT_STATUS, {
        credentialId: credential.id,
        apiProductId: item.product.id,
        status,
      });
      onChange(setCredentialProductStatus);
      return `${item.product.name} ${status} on this credential.`;
    }, item.product.id);
  }

  function rotate() {
    const graceSeconds = Number(grace);
    void action.run(async () => {
      const { rotateCredential } = await graphql(ROTATE_CREDENTIAL, { credentialId: credential.id, graceSeconds });
      onRotated(rotateCredential);
    }, "rotate");
  }

  function revoke() {
    void action.run(async () => {
      const { revokeCredential } = await graphql(REVOKE_CREDENTIAL, { credentialId: credential.id });
      onChange(revokeCredential);
      return "Credential revoked.";
    }, "revoke");
  }

  const graceValue = Number(grace);
  const graceValid = grace.trim() !== "" && Number.isInteger(graceValue) && graceValue >= 0 && graceValue <= 2_592_000;
  return (
    <article className="credential" aria-labelledby={headingId}>
      <h3 id={headingId}>
        Consumer key <code>{key}</code>
      </h3>
      <dl className="facts">
        <div>
          <dt>Status</dt>
          <dd>
            <Badge>{credential.status}</Badge>
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <DateTime value={credential.createdAt} />
          </dd>
        </div>
        {credential.expiresAt && (
          <div>
            <dt>Valid until</dt>
            <dd>
              <DateTime value={credential.expiresAt} />
            </dd>
          </div>
        )}
      </dl>
      {credential.products.length === 0 ? (
        <p className="empty">No API products on this credential.</p>
      ) : (
        <div className="table-wrap">
          <table className="table">
            <caption className="visually-hidden">API products of consumer key {key}</caption>
            <thead>
              <tr>
                <th scope="col">API product</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {credential.products.map((item) => (
                <tr key={item.product.id}>
                  <th scope="row">
                    {item.product.name}
                    {item.product.displayName && item.product.displayName !== item.product.name && (
                      <span className="muted small"> {item.product.displayName}</span>
                    )}
                  </th>
                  <td>
                    <Badge>{item.status}</Badge>
                  </td>
                  <td className="cell-actions">
                    {approved && item.status !== "approved" && (
                      <button
                        type="button"
                        className="button secondary small"
                        aria-disabled={action.pending !== null || undefined}
                        aria-busy={action.pending === item.product.id || undefined}
                        onClick={() => setProductStatus(item, "approved")}
                      >
                        Approve<span className="visually-hidden"> {item.product.name}</span>
                      </button>
                    )}
                    {approved && item.status !== "revoked" && (
                      <ConfirmButton
                        label="Revoke"
                        context={item.product.name}
                        question={`Revoke ${item.product.name} on this credential? New tokens will not include it.`}
                        confirmLabel="Yes, revoke"
                        busy={action.pending === item.product.id}
                        disabled={action.pending !== null}
                        onConfirm={() => setProductStatus(item, "revoked")}
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {approved && (
        <div className="credential-actions">
          <div className="rotate">
            <label htmlFor={graceId}>Grace period (seconds)</label>
            <div className="rotate-row">
              <input
                id={graceId}
                type="number"
                inputMode="numeric"
                min={0}
                max={2_592_000}
                step={1}
                value={grace}
                aria-describedby={`${graceId}-hint`}
                aria-invalid={!graceValid || undefined}
                onChange={(e) => setGrace(e.target.value)}
              />
              <ConfirmButton
                label="Rotate"
                context={`consumer key ${key}`}
                className="button secondary small"
                question={
                  graceValue > 0
                    ? `Issue a new key and secret? The old ones keep working for ${graceValue} seconds.`
                    : "Issue a new key and secret? The old ones stop working now."
                }
                confirmLabel="Yes, rotate"
                busy={action.pending === "rotate"}
                disabled={action.pending !== null || !graceValid}
                onConfirm={rotate}
              />
            </div>
            <p id={`${graceId}-hint`} className="hint">
              How long the old secret keeps working after the rotation (up to 30 days); 0 revokes it now.
            </p>
          </div>
          <ConfirmButton
            label="Revoke credential"
            context={key}
            question="Revoke this credential? Its key and secret stop working now."
            confirmLabel="Yes, revoke the credential"
            busy={action.pending === "revoke"}
            disabled={action.pending !== null}
            onConfirm={revoke}
          />
        </div>
      )}
      <ActionNotices action={action} />
    </article>
  );
}
