import { useCan } from "../../lib/session";
import { graphql } from "../../api/graphql";
import { ConfirmButton } from "../../components/ConfirmButton";
import type { Column } from "../../components/DataTable";
import { DateTime } from "../../components/Format";
import { ListTable } from "../../components/ListTable";
import { ActionNotices } from "../../components/Notices";
import { Panel } from "../../components/Panel";
import { useAction, useQuery } from "../../lib/useGraphQL";
import { RESET_USER_FACTORS, USER_FACTORS, type FactorType, type UserFactor } from "../../api/sca";

/** Factor types in words. */
const FACTOR_TYPES: Record<FactorType, string> = {
  totp: "Authenticator app (TOTP)",
  webauthn: "Passkey",
};

const COLUMNS: Column<UserFactor>[] = [
  { header: "Name", rowHeader: true, cell: (f) => f.name || <span className="muted">unnamed</span> },
  { header: "Type", cell: (f) => FACTOR_TYPES[f.type] ?? f.type },
  { header: "Added", cell: (f) => <DateTime value={f.createdAt} /> },
  { header: "Last used", cell: (f) => <DateTime value={f.lastUsedAt} /> },
];

/**
 * A user's sign-in factors (the second element of strong customer authentication: an
 * authenticator app or a passkey), and "Reset sign-in factors", which deletes them all,
 * e.g. after a lost phone (part of /admin/users).
 */
export function UserFactors({ userId, username }: { userId: string; username: string | undefined }) {
  const query = useQuery(USER_FACTORS, { id: userId });
  const action = useAction();
  const can = useCan();
  const factors = query.data?.user?.factors ?? [];
  const who = username ?? "this user";

  function reset() {
    void action.run(async () => {
      const { resetUserFactors } = await graphql(RESET_USER_FACTORS, { userId });
      query.setData(() => ({ user: resetUserFactors }));
      return `The sign-in factors of ${resetUserFactors.username} were reset: they sign in with their password alone until they set up a new factor.`;
    }, "reset");
  }

  return (
    <Panel title="Sign-in factors">
      <ActionNotices action={action} />
      <ListTable
        caption={`Sign-in factors of ${who}`}
        list={{ ...query, nodes: factors }}
        columns={COLUMNS}
        rowKey={(f) => f.id}
        empty="No sign-in factors: this user signs in with a password alone and cannot pass strong customer authentication."
      />
      {factors.length > 0 && can("resetUserFactors") && (
        <div className="form-actions">
          <ConfirmButton
            label="Reset sign-in factors"
            context={`of ${who}`}
            question={`Reset the sign-in factors of ${who}? Their authenticator apps and passkeys stop working at once, they are signed out and their apps lose access; until they set up a new factor, they cannot pass strong customer authentication.`}
            confirmLabel="Yes, reset"
            {...action.button("reset")}
            onConfirm={reset}
          />
        </div>
      )}
    </Panel>
  );
}
