import { graphql } from "../api/graphql";
import { REVOKE_TOKEN, REVOKE_TOKENS, TOKENS, type AccessToken } from "../api/admin";
import { useAction, useConnection } from "../lib/useGraphQL";
import { ConfirmButton } from "./ConfirmButton";
import { actionsColumn, type Column } from "./DataTable";
import { Badge, Chips, DateTime } from "./Format";
import { ListTable, LoadMore } from "./ListTable";
import { ActionNotices } from "./Notices";
import { Panel } from "./Panel";

type Owner = { appId: string; userId?: never } | { userId: string; appId?: never };

function describe(token: AccessToken, owner: Owner): string {
  const who = owner.appId ? (token.user ? `for ${token.user.username}` : "for the app itself") : `to ${token.app.name}`;
  return `token issued ${new Date(token.issuedAt).toLocaleString()} ${who}`;
}

/** The token's refresh token: its status, expiry and number of refreshes, or "none". */
function RefreshToken({ token }: { token: AccessToken }) {
  if (!token.refreshTokenStatus) return <span className="muted">none</span>;
  return (
    <>
      <Badge>{token.refreshTokenStatus}</Badge>{" "}
      <span className="small muted">
        until <DateTime value={token.refreshTokenExpiresAt} />, refreshed {token.refreshCount}×
      </span>
    </>
  );
}

/** Characters of a DPoP key thumbprint shown (of 43, base64url SHA-256): enough to tell keys apart at a glance. */
const THUMBPRINT_SHOWN = 8;

/** How the token is used: "DPoP" with the start of its key's thumbprint (RFC 9449 cnf.jkt), or "Bearer" (RFC 6750). */
function Binding({ token }: { token: AccessToken }) {
  if (!token.jkt) return <>Bearer</>;
  return (
    <>
      DPoP <code>{token.jkt.slice(0, THUMBPRINT_SHOWN)}…</code>
    </>
  );
}

/** The columns of an owner's tokens: "User" of an app's tokens, "App" of a user's. */
function tokenColumns(owner: Owner): Column<AccessToken>[] {
  return [
    { header: "Issued", cell: (t) => <DateTime value={t.issuedAt} /> },
    { header: "Expires", cell: (t) => <DateTime value={t.expiresAt} /> },
    owner.appId
      ? { header: "User", cell: (t) => t.user?.username ?? <span className="muted">app (client credentials)</span> }
      : { header: "App", cell: (t) => t.app.name },
    { header: "Grant", cell: (t) => <code>{t.grantType}</code> },
    { header: "Binding", cell: (t) => <Binding token={t} /> },
    { header: "Scopes", cell: (t) => <Chips items={t.scopes} /> },
    { header: "Refresh token", cell: (t) => <RefreshToken token={t} /> },
  ];
}

/**
 * The live (approved, unexpired) access tokens of an app or of a user, newest first, with
 * "Revoke" per token and "Revoke all".
 */
export function TokensSection({ owner, title = "Live tokens" }: { owner: Owner; title?: string }) {
  const tokens = useConnection(TOKENS, { ...owner, first: 50 }, (d) => d.tokens);
  const action = useAction();
  const whose = owner.appId ? "of this app" : "of this user";

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

  const columns = [
    ...tokenColumns(owner),
    actionsColumn((token: AccessToken) => (
      <ConfirmButton
        label="Revoke"
        context={describe(token, owner)}
        question="Revoke this token?"
        confirmLabel="Yes, revoke"
        {...action.button(token.id)}
        onConfirm={() => revoke(token)}
      />
    )),
  ];
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
            {...action.button("all")}
            onConfirm={revokeAll}
          />
        )
      }
    >
      <ActionNotices action={action} />
      <ListTable caption={title} list={tokens} columns={columns} rowKey={(t) => t.id} empty={`There are no live tokens ${whose}.`} />
      <LoadMore list={tokens} what="tokens" />
    </Panel>
  );
}
