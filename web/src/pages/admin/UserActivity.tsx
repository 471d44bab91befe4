import { Can } from "../../components/Can";
import { useId, useState } from "react";
import { Link } from "react-router";
import { CONSENTS, REVOKE_CONSENT, type Consent } from "../../api/admin";
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

/** A user's sign-in factors, live tokens and consents (part of /admin/users). */
export function UserActivity({ userId, username, onClose }: { userId: string; username: string | undefined; onClose: () => void }) {
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
      <UserFactors userId={userId} username={username} />
      <TokensSection key={tokensVersion} owner={{ userId }} title="Live tokens" />
      <Consents userId={userId} onRevoked={() => setTokensVersion((n) => n + 1)} />
    </section>
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
