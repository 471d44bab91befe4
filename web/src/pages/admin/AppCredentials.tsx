import { useId, useState, type FormEvent } from "react";
import { GRACE_SECONDS } from "../../../../server/src/kernel/limits";
import {
  API_PRODUCT_OPTIONS,
  REVOKE_CREDENTIAL,
  ROTATE_CREDENTIAL,
  SET_CREDENTIAL_PRODUCT_STATUS,
  type ApiProductOption,
  type AppDetail,
  type Credential,
  type CredentialProduct,
  type IssuedCredential,
  type ProductStatus,
} from "../../api/admin";
import { graphql } from "../../api/graphql";
import { applyMutation } from "../../lib/applyMutation";
import { ActionButton } from "../../components/ActionButton";
import { ADMIN_CONFIRMATION_REQUIRED, AdminAccessConfirmation } from "../../components/AdminAccessConfirmation";
import { ConfirmButton } from "../../components/ConfirmButton";
import { actionsColumn, DataTable, type Column } from "../../components/DataTable";
import { Facts } from "../../components/Facts";
import { SelectField, SubmitButton } from "../../components/Field";
import { Badge, DateTime, durationText } from "../../components/Format";
import { ActionNotices } from "../../components/Notices";
import { Panel } from "../../components/Panel";
import { SecretPanel } from "../../components/SecretPanel";
import { isAdminProduct, productLabel, productsNotOn } from "../../lib/api-products";
import { useCan } from "../../lib/session";
import { FormInputError, useAction, useQuery, type Action } from "../../lib/useGraphQL";

/**
 * The app's credentials (part of /admin/apps/:id): their API products (approve / revoke, and
 * "Add an API product"), "Rotate" (the new secret is shown once) and "Revoke credential".
 *
 * @param onRotated - reloads the app, which now has one more credential.
 */
export function AppCredentials({ app, onChange, onRotated }: { app: AppDetail; onChange: (app: AppDetail) => void; onRotated: () => void }) {
  const [issued, setIssued] = useState<IssuedCredential | null>(null);
  const products = useQuery(API_PRODUCT_OPTIONS).data?.apiProducts ?? [];

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
            products={products}
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
  products,
  onChange,
  onRotated,
}: {
  credential: Credential;
  /** Every API product, for "Add an API product". */
  products: readonly ApiProductOption[];
  onChange: (credential: Credential) => void;
  onRotated: (issued: IssuedCredential) => void;
}) {
  const action = useAction();
  const headingId = useId();
  const can = useCan();
  /** An approved credential's actions (products, rotation, revocation): the admin's only. */
  const approved = credential.status === "approved" && can("rotateCredential");
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

  function rotate(graceSeconds: number) {
    void action.run(async () => {
      await applyMutation(ROTATE_CREDENTIAL, { credentialId: credential.id, graceSeconds }, onRotated);
    }, "rotate");
  }

  function revoke() {
    void action.run(async () => {
      await applyMutation(REVOKE_CREDENTIAL, { credentialId: credential.id }, onChange);
      return "Credential revoked.";
    }, "revoke");
  }

  const productColumns: Column<CredentialProduct>[] = [
    {
      header: "API product",
      rowHeader: true,
      cell: ({ product }) => (
        <>
          {product.name}
          {product.displayName && product.displayName !== product.name && <span className="muted small"> {product.displayName}</span>}
        </>
      ),
    },
    { header: "Status", cell: (item) => <Badge>{item.status}</Badge> },
    actionsColumn((item) => (
      <>
        {approved && item.status !== "approved" && (
          <ActionButton label="Approve" context={item.product.name} {...action.button(item.product.id)} onClick={() => setProductStatus(item, "approved")} />
        )}
        {approved && item.status !== "revoked" && (
          <ConfirmButton
            label="Revoke"
            context={item.product.name}
            question={`Revoke ${item.product.name} on this credential? New tokens will not include it.`}
            confirmLabel="Yes, revoke"
            {...action.button(item.product.id)}
            onConfirm={() => setProductStatus(item, "revoked")}
          />
        )}
      </>
    )),
  ];
  return (
    <article className="credential" aria-labelledby={headingId}>
      <h3 id={headingId}>
        Consumer key <code>{key}</code>
      </h3>
      <Facts
        facts={[
          ["Status", <Badge>{credential.status}</Badge>],
          ["Created", <DateTime value={credential.createdAt} />],
          ["Valid until", credential.expiresAt ? <DateTime value={credential.expiresAt} /> : null],
        ]}
      />
      <DataTable
        caption={`API products of consumer key ${key}`}
        rows={credential.products}
        columns={productColumns}
        rowKey={(item) => item.product.id}
        empty="No API products on this credential."
      />
      {approved && <AddProduct credential={credential} products={productsNotOn(products, credential)} action={action} onAdded={onChange} />}
      {approved && (
        <div className="credential-actions">
          <RotateControl consumerKey={key} action={action} onRotate={rotate} />
          <ConfirmButton
            label="Revoke credential"
            context={key}
            question="Revoke this credential? Its key and secret stop working now."
            confirmLabel="Yes, revoke the credential"
            {...action.button("revoke")}
            onConfirm={revoke}
          />
        </div>
      )}
      <ActionNotices action={action} />
    </article>
  );
}

/**
 * "Add an API product" to a credential: a product it does not have yet, approved on it at
 * once (setCredentialProductStatus adds it). The admin API product needs the second
 * confirmation, as on "Create an app".
 */
function AddProduct({
  credential,
  products,
  action,
  onAdded,
}: {
  credential: Credential;
  /** The products the credential does not have. */
  products: readonly ApiProductOption[];
  action: Action;
  onAdded: (credential: Credential) => void;
}) {
  const [productId, setProductId] = useState("");
  const [confirmed, setConfirmed] = useState(false);
  const chosen = products.find((p) => p.id === productId);
  if (products.length === 0) return null;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(async () => {
      if (!chosen) throw new FormInputError("Choose the API product to add.");
      if (isAdminProduct(chosen) && !confirmed) throw new FormInputError(ADMIN_CONFIRMATION_REQUIRED);
      const { setCredentialProductStatus } = await graphql(SET_CREDENTIAL_PRODUCT_STATUS, {
        credentialId: credential.id,
        apiProductId: chosen.id,
        status: "approved",
      });
      onAdded(setCredentialProductStatus);
      setProductId("");
      setConfirmed(false);
      return `${chosen.name} added to this credential and approved: the app's next tokens may carry its scopes.`;
    }, "add");
  }

  return (
    <form className="inline-form" onSubmit={onSubmit} aria-label={`Add an API product to consumer key ${credential.consumerKey}`}>
      <SelectField
        label="API product to add"
        value={productId}
        onChange={setProductId}
        required
        placeholder="Choose an API product"
        options={products.map((p) => ({ value: p.id, label: productLabel(p) }))}
      />
      <SubmitButton busy={action.pending === "add"} className="button secondary">
        Add API product
      </SubmitButton>
      {chosen && isAdminProduct(chosen) && (
        <div className="fieldset caution">
          <AdminAccessConfirmation confirmed={confirmed} onChange={setConfirmed} />
        </div>
      )}
    </form>
  );
}

/** "Rotate" with its grace period: how long the old key and secret keep working (0: not at all). */
function RotateControl({ consumerKey, action, onRotate }: { consumerKey: string; action: Action; onRotate: (graceSeconds: number) => void }) {
  const id = useId();
  const [grace, setGrace] = useState("0");
  const seconds = Number(grace);
  const valid = grace.trim() !== "" && Number.isInteger(seconds) && seconds >= GRACE_SECONDS.min && seconds <= GRACE_SECONDS.max;
  return (
    <div className="rotate">
      <label htmlFor={id}>Grace period (seconds)</label>
      <div className="rotate-row">
        <input
          id={id}
          type="number"
          inputMode="numeric"
          min={GRACE_SECONDS.min}
          max={GRACE_SECONDS.max}
          step={1}
          value={grace}
          aria-describedby={`${id}-hint`}
          aria-invalid={!valid || undefined}
          onChange={(e) => setGrace(e.target.value)}
        />
        <ConfirmButton
          label="Rotate"
          context={`consumer key ${consumerKey}`}
          className="button secondary small"
          question={
            seconds > 0
              ? `Issue a new key and secret? The old ones keep working for ${seconds} seconds.`
              : "Issue a new key and secret? The old ones stop working now."
          }
          confirmLabel="Yes, rotate"
          busy={action.pending === "rotate"}
          disabled={action.pending !== null || !valid}
          onConfirm={() => onRotate(seconds)}
        />
      </div>
      <p id={`${id}-hint`} className="hint">
        How long the old secret keeps working after the rotation (up to {durationText(GRACE_SECONDS.max)}); 0 revokes it now.
      </p>
    </div>
  );
}
