import { graphql } from "../api/graphql";
import { REVOKE_TOKEN, REVOKE_TOKENS, TOKENS, type AccessToken } from "../api/admin";
import { useAction, useConnection } from "../lib/useGraphQL";
import { ConfirmButton } from "./ConfirmButton";
import { Badge, Chips, DateTime } from "./Format";
import { ActionNotices } from "./Notices";
import { ListState, LoadMore, Panel } from "./Panel";

type Owner = { appId: string; userId?: never } | { userId: string; appId?: never };

function describe(token: AccessToken, owner: Owner): string {
  const who = owner.appId ? (token.user ? `for ${token.user.username}` : "for the app itself") : `to ${token.app.name}`;
  return `token issued ${new Date(token.issuedAt).toLocaleString()} ${who}`;
}

/**
 * The live (approved, unexpired) access tokens of an app or of a user, newest first, with
 * "Revoke" per token and "Revoke all".
 */
export function TokensSection({ owner, title = "Live tokens" }: { owner: Owner; title?: string }) {
  const tokens = useConnection(TOKENS, { ...owner, first: 50 }, (d) => d.tokens);
  const action = useAction();
  const byApp = owner.appId !== undefined;
  const whose = byApp ? "of this app" : "of this user";

  function revoke(token: AccessToken) {
    void action.run(async () => {
      await graphql(REVOKE_TOKEN, { id: token.id });
      tokens.update((nodes) => nodes.filter((t) => t.id !== token.id));
      return "Token revoked.";
    }, token.id);
  }

  function revokeAll() {
    void action.run(async () => {
      const { revokeTokens } = await graphql(REVOKE_TOKENS, owner);
      tokens.reload();
      return `${revokeTokens} ${revokeTokens === 1 ? "token" : "tokens"} revoked.`;
    }, "all");
  }

  return (
    <Panel
      title={title}
      actions={
        tokens.nodes.length > 0 && (
          <ConfirmButton
            label="Revoke all"
            context={`live tokens ${whose}`}
            question={`Revoke every live token ${whose}? Apps using them will have to obtain new ones.`}
            confirmLabel="Yes, revoke all"
            busy={action.pending === "all"}
            disabled={action.pending !== null}
            onConfirm={revokeAll}
          />
        )
      }
    >
      <ActionNotices action={action} />
      <ListState
        loading={tokens.loading}
        error={tokens.error}
        isEmpty={tokens.nodes.length === 0}
        empty={`There are no live tokens ${whose}.`}
        onRetry={tokens.reload}
      >
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th scope="col">Issued</th>
                <th scope="col">Expires</th>
                <th scope="col">{byApp ? "User" : "App"}</th>
                <th scope="col">Grant</th>
                <th scope="col">Scopes</th>
                <th scope="col">Refresh token</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.nodes.map((token) => (
                <tr key={token.id}>
                  <td>
                    <DateTime value={token.issuedAt} />
                  </td>
                  <td>
                    <DateTime value={token.expiresAt} />
                  </td>
                  <td>{byApp ? (token.user?.username ?? <span className="muted">app (client credentials)</span>) : token.app.name}</td>
                  <td>
                    <code>{token.grantType}</code>
                  </td>
                  <td>
                    <Chips items={token.scopes} />
                  </td>
                  <td>
                    {token.refreshTokenStatus ? (
                      <>
                        <Badge>{token.refreshTokenStatus}</Badge>{" "}
                        <span className="small muted">
                          until <DateTime value={token.refreshTokenExpiresAt} />, refreshed {token.refreshCount}×
                        </span>
                      </>
                    ) : (
                      <span className="muted">none</span>
                    )}
                  </td>
                  <td className="cell-actions">
                    <ConfirmButton
                      label="Revoke"
                      context={describe(token, owner)}
                      question="Revoke this token?"
                      confirmLabel="Yes, revoke"
                      busy={action.pending === token.id}
                      disabled={action.pending !== null}
                      onConfirm={() => revoke(token)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <LoadMore hasNextPage={tokens.hasNextPage} loading={tokens.loadingMore} onLoadMore={tokens.loadMore} what="tokens" />
      </ListState>
    </Panel>
  );
}
