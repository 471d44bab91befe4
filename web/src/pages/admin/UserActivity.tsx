import { useId, useState } from "react";
import { CONSENTS, REVOKE_CONSENT, type Consent } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { ConfirmButton } from "../../components/ConfirmButton";
import { Chips, DateTime } from "../../components/Format";
import { ActionNotices } from "../../components/Notices";
import { ListState, Panel } from "../../components/Panel";
import { TokensSection } from "../../components/TokensSection";
import { useAction, useQuery } from "../../lib/useGraphQL";

/** A user's live tokens and consents (part of /admin/users). */
export function UserActivity({ userId, username, onClose }: { userId: string; username: string | undefined; onClose: () => void }) {
  const headingId = useId();
  // Revoking a consent revokes its tokens: the token list is loaded again (remounted) then.
  const [tokensVersion, setTokensVersion] = useState(0);
  return (
    <section className="user-activity" aria-labelledby={headingId}>
      <div className="section-head">
        <h2 id={headingId}>Tokens and consents of {username ?? "the selected user"}</h2>
        <button type="button" className="button secondary small" onClick={onClose}>
          Close<span className="visually-hidden"> tokens and consents</span>
        </button>
      </div>
      <TokensSection key={tokensVersion} owner={{ userId }} title="Live tokens" />
      <Consents userId={userId} onRevoked={() => setTokensVersion((n) => n + 1)} />
    </section>
  );
}

function Consents({ userId, onRevoked }: { userId: string; onRevoked: () => void }) {
  const query = useQuery(CONSENTS, { userId });
  const action = useAction();
  const consents = query.data?.consents ?? [];

  function revoke(consent: Consent) {
    void action.run(async () => {
      await graphql(REVOKE_CONSENT, { id: consent.id });
      query.setData((d) => ({ consents: d.consents.filter((c) => c.id !== consent.id) }));
      onRevoked();
      return `Consent for ${consent.app.name} revoked, with its tokens.`;
    }, consent.id);
  }

  return (
    <Panel title="Consents">
      <ActionNotices action={action} />
      <ListState loading={query.loading} error={query.error} isEmpty={consents.length === 0} empty={query.data ? "No consents." : ""} onRetry={query.reload}>
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">App</th>
                <th scope="col">Organization</th>
                <th scope="col">Scopes</th>
                <th scope="col">Granted</th>
                <th scope="col">Updated</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {consents.map((consent) => (
                <tr key={consent.id}>
                  <th scope="row">{consent.app.name}</th>
                  <td>{consent.app.developer.organization.name}</td>
                  <td>
                    <Chips items={consent.scopes} />
                  </td>
                  <td>
                    <DateTime value={consent.createdAt} />
                  </td>
                  <td>
                    <DateTime value={consent.updatedAt} />
                  </td>
                  <td className="cell-actions">
                    <ConfirmButton
                      label="Revoke"
                      context={`consent for ${consent.app.name}`}
                      question="Revoke this consent? Every token issued under it is revoked too."
                      confirmLabel="Yes, revoke"
                      busy={action.pending === consent.id}
                      disabled={action.pending !== null}
                      onConfirm={() => revoke(consent)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </ListState>
    </Panel>
  );
}
