import { Can } from "./Can";
import { Link } from "react-router";
import { graphql } from "../api/graphql";
import { REVOKE_TOKENS, TOKENS } from "../api/admin";
import { routes } from "../lib/routes";
import { useAction, useConnection } from "../lib/useGraphQL";
import { ConfirmButton } from "./ConfirmButton";
import { ListTable, LoadMore } from "./ListTable";
import { ActionNotices } from "./Notices";
import { Panel } from "./Panel";
import { revokeColumn, tokenColumns } from "./TokenColumns";

type Owner = { appId: string; userId?: never } | { userId: string; appId?: never };

/**
 * The live (approved, unexpired) access tokens of an app or of a user, newest first, with
 * "Revoke" per token, "Revoke all", and a link to all their tokens on the tokens page.
 */
export function TokensSection({ owner, title = "Live tokens" }: { owner: Owner; title?: string }) {
  const tokens = useConnection(TOKENS, { ...owner, first: 50 }, (d) => d.tokens);
  const action = useAction();
  const whose = owner.appId ? "of this app" : "of this user";

  function revokeAll() {
    void action.run(async () => {
      const { revokeTokens } = await graphql(REVOKE_TOKENS, owner);
      tokens.reload();
      return `${revokeTokens} ${revokeTokens === 1 ? "token" : "tokens"} revoked.`;
    }, "all");
  }

  const columns = [
    // An app's tokens name their user, a user's their app.
    ...tokenColumns(owner.appId ? { user: true } : { app: true }),
    revokeColumn(action, (revoked) => tokens.update((nodes) => nodes.filter((t) => t.id !== revoked.id))),
  ];
  return (
    <Panel
      title={title}
      actions={
        tokens.nodes.length > 0 && (
          <Can mutation="revokeTokens">
            <ConfirmButton
              label="Revoke all"
              context={`live tokens ${whose}`}
              question={`Revoke every live token ${whose}? Apps using them will have to obtain new ones.`}
              confirmLabel="Yes, revoke all"
              {...action.button("all")}
              onConfirm={revokeAll}
            />
          </Can>
        )
      }
    >
      <ActionNotices action={action} />
      <ListTable caption={title} list={tokens} columns={columns} rowKey={(t) => t.id} empty={`There are no live tokens ${whose}.`} />
      <LoadMore list={tokens} what="tokens" />
      <p className="small">
        <Link to={routes.tokens(owner.appId ? { appId: owner.appId } : { userId: owner.userId })}>Every token {whose}, revoked and expired ones too</Link>
      </p>
    </Panel>
  );
}
