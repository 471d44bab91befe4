import { Can } from "../../components/Can";
import { useId, useState } from "react";
import { Link } from "react-router";
import { CONSENTS, REVOKE_CONSENT, USER_PSD2_CONSENTS, type Consent, type User } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { ConfirmButton } from "../../components/ConfirmButton";
import { Chips, DateTime } from "../../components/Format";
import { ActionNotices } from "../../components/Notices";
import { actionsColumn, type Column } from "../../components/DataTable";
import { ListTable } from "../../components/ListTable";
import { Panel } from "../../components/Panel";
import { TokensSection } from "../../components/TokensSection";
import { routes } from "../../lib/routes";
import { useAction, useQuery } from "../../lib/useGraphQL";
import { UserFactors } from "./UserFactors";
import { UserSupport } from "./UserSupport";
import { psd2ConsentColumns } from "./Psd2ConsentRows";

/**
 * A user's sign-in (block, temporary password), sign-in factors, live tokens, consents and PSD2 consents (part of /admin/users).
 * @param user - the user as the list holds it (the sign-in panel needs it; left out when the list does not hold them).
 */
export function UserActivity({
  userId,
  username,
  user,
  onChanged,
  onClose,
}: {
  userId: string;
  username: string | undefined;
  user?: User;
  onChanged: (user: User) => void;
  onClose: () => void;
}) {
  const headingId = useId();
  // Revoking a consent revokes its tokens: the token list is loaded again (remounted) then.
  const [tokensVersion, setTokensVersion] = useState(0);
  return (
    <section className="user-activity" aria-labelledby={headingId}>
      <div className="section-head">
        <h2 id={headingId}>Sign-in factors, tokens and consents of {username ?? "the selected user"}</h2>
        <button type="button" className="button secondary small" onClick={onClose}>
          Close<span className="visually-hidden"> sign-in factors, tokens and consents</span>
        </button>
      </div>
      {user && <UserSupport user={user} onChanged={onChanged} />}
      <UserFactors userId={userId} username={username} />
      <TokensSection key={tokensVersion} owner={{ userId }} title="Live tokens" />
      <Consents userId={userId} onRevoked={() => setTokensVersion((n) => n + 1)} />
      <Psd2Consents userId={userId} />
    </section>
  );
}

/** The PSD2 consents the user gave TPPs, each linked to its page. */
function Psd2Consents({ userId }: { userId: string }) {
  const query = useQuery(USER_PSD2_CONSENTS, { id: userId });
  return (
    <Panel title="PSD2 consents">
      <ListTable
        caption="PSD2 consents"
        list={{ ...query, nodes: query.data?.user?.psd2Consents ?? [] }}
        columns={psd2ConsentColumns({ withPsu: false })}
        rowKey={(c) => c.id}
        empty="No PSD2 consents."
      />
    </Panel>
  );
}

/** The apps the user consented to, each linked to its page ("View", with its evidence), with "Revoke" per consent (which revokes its tokens too). */
function Consents({ userId, onRevoked }: { userId: string; onRevoked: () => void }) {
  const query = useQuery(CONSENTS, { userId });
  const action = useAction();

  function revoke(consent: Consent) {
    void action.run(async () => {
      await graphql(REVOKE_CONSENT, { id: consent.id });
      query.setData((d) => ({ consents: d.consents.filter((c) => c.id !== consent.id) }));
      onRevoked();
      return `Consent for ${consent.app.name} revoked, with its tokens.`;
    }, consent.id);
  }

  const columns: Column<Consent>[] = [
    { header: "App", rowHeader: true, cell: (c) => c.app.name },
    { header: "Organization", cell: (c) => c.app.developer.organization.name },
    { header: "Scopes", cell: (c) => <Chips items={c.scopes} /> },
    { header: "Granted", cell: (c) => <DateTime value={c.createdAt} /> },
    { header: "Updated", cell: (c) => <DateTime value={c.updatedAt} /> },
    actionsColumn((consent) => (
      <>
        <Link to={routes.scopeConsent(consent.id)}>
          View<span className="visually-hidden"> consent for {consent.app.name}</span>
        </Link>
        <Can mutation="revokeConsent">
          <ConfirmButton
            label="Revoke"
            context={`consent for ${consent.app.name}`}
            question="Revoke this consent? Every token issued under it is revoked too."
            confirmLabel="Yes, revoke"
            {...action.button(consent.id)}
            onConfirm={() => revoke(consent)}
          />
        </Can>
      </>
    )),
  ];
  return (
    <Panel title="Consents">
      <ActionNotices action={action} />
      <ListTable caption="Consents" list={{ ...query, nodes: query.data?.consents ?? [] }} columns={columns} rowKey={(c) => c.id} empty="No consents." />
    </Panel>
  );
}
