import { CheckboxField } from "./Field";

/** What a form says when an admin API product is chosen without the confirmation. */
export const ADMIN_CONFIRMATION_REQUIRED =
  "Tick “I understand this app can administer Tollgate” to approve the admin API product, or leave the product out.";

/**
 * The warning that comes with the admin API product (lib/api-products.ts isAdminProduct),
 * and the second confirmation an admin gives before approving it on a credential.
 */
export function AdminAccessConfirmation({ confirmed, onChange }: { confirmed: boolean; onChange: (confirmed: boolean) => void }) {
  return (
    <>
      <p className="caution-text">
        <strong>Its tokens administer Tollgate</strong> through the admin API: every organization, app, credential, user and token. Approve it
        only for your own operators' automation.
      </p>
      <CheckboxField label="I understand this app can administer Tollgate" checked={confirmed} onChange={onChange} />
    </>
  );
}
