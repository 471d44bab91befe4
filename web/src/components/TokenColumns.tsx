import { Can } from "./Can";
import { Link } from "react-router";
import { REVOKE_TOKEN, type AccessToken } from "../api/admin";
import { graphql } from "../api/graphql";
import { routes } from "../lib/routes";
import { revokedByText, tokenIdPrefix } from "../lib/tokens";
import type { Action } from "../lib/useGraphQL";
import { ConfirmButton } from "./ConfirmButton";
import { actionsColumn, type Column } from "./DataTable";
import { ExactTime } from "./ExactTime";
import { Badge, Chips, type Tone } from "./Format";

/** What revokeToken returns: the token's new state and who revoked it when. */
export type RevokedToken = Pick<AccessToken, "id" | "status" | "state" | "revokedAt" | "revokedBy">;

const dash = <span className="muted">—</span>;

const STATE_TONES: Record<AccessToken["state"], Tone> = { LIVE: "ok", REVOKED: "bad", EXPIRED: "neutral" };

/** The token's state; a revoked one's says by whom ("by admin alice") and when. */
function TokenState({ token }: { token: AccessToken }) {
  const by = revokedByText(token.revokedBy, token.clientId);
  return (
    <>
      <Badge tone={STATE_TONES[token.state]}>{token.state}</Badge>
      {token.state === "REVOKED" && (
        <span className="block small">
          {by || "by whom is not recorded"}
          {token.revokedAt && (
            <>
              , <ExactTime value={token.revokedAt} />
            </>
          )}
        </span>
      )}
    </>
  );
}

/** The token's refresh token: its status, expiry and number of refreshes, or "none". */
function RefreshToken({ token }: { token: AccessToken }) {
  if (!token.refreshTokenStatus) return <span className="muted">none</span>;
  return (
    <>
      <Badge>{token.refreshTokenStatus}</Badge>{" "}
      <span className="small muted">
        until <ExactTime value={token.refreshTokenExpiresAt} />, refreshed {token.refreshCount}×
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

/**
 * The columns of a list of tokens. Every list names each token by the start of its id (as a
 * refusal's audit details do); its row's details show its consumer key, products, scopes,
 * issue and expiry times to the second with the time zone, grant, binding (Bearer or DPoP)
 * and refresh token.
 * @param show - the optional columns: the state (with who revoked it and when), the app, the user.
 */
export function tokenColumns(show: { state?: boolean; app?: boolean; user?: boolean }): Column<AccessToken>[] {
  const columns: Array<Column<AccessToken> | false | undefined> = [
    { header: "Token", rowHeader: true, cell: (t) => <code className="token-id">{tokenIdPrefix(t.id)}</code> },
    show.state && { header: "State", cell: (t) => <TokenState token={t} /> },
    show.app && { header: "App", cell: (t) => <Link to={routes.appDetail(t.app.id)}>{t.app.name}</Link> },
    show.user && {
      header: "User",
      cell: (t) =>
        t.user ? (
          <>
            <Link to={routes.users({ search: t.user.username, user: t.user.id })}>{t.user.username}</Link>
            {t.authenticatedBy && <span className="block small muted">signed in at {t.authenticatedBy}</span>}
          </>
        ) : (
          <span className="muted">app (client credentials)</span>
        ),
    },
    { header: "Consumer key", detail: true, cell: (t) => (t.clientId ? <code>{t.clientId}</code> : dash) },
    { header: "Products", detail: true, cell: (t) => <Chips items={t.products} /> },
    { header: "Scopes", detail: true, cell: (t) => <Chips items={t.scopes} /> },
    { header: "Issued", detail: true, cell: (t) => <ExactTime value={t.issuedAt} /> },
    { header: "Expires", detail: true, cell: (t) => <ExactTime value={t.expiresAt} /> },
    { header: "Grant", detail: true, cell: (t) => <code>{t.grantType}</code> },
    { header: "Binding", detail: true, cell: (t) => <Binding token={t} /> },
    { header: "Refresh token", detail: true, cell: (t) => <RefreshToken token={t} /> },
  ];
  return columns.filter((c): c is Column<AccessToken> => Boolean(c));
}

/**
 * The last column of a token list: "Revoke" on each live token (named "Revoke token
 * <id prefix>" for assistive technology), asking to confirm first.
 * @param onRevoked - given what revokeToken returned, once the token is revoked.
 */
export function revokeColumn(action: Action, onRevoked: (revoked: RevokedToken) => void): Column<AccessToken> {
  function revoke(token: AccessToken) {
    void action.run(async () => {
      const { revokeToken } = await graphql(REVOKE_TOKEN, { id: token.id });
      onRevoked(revokeToken);
      return `Token ${tokenIdPrefix(token.id)} revoked.`;
    }, token.id);
  }
  return actionsColumn((token) => {
    if (token.state !== "LIVE") return null;
    const name = tokenIdPrefix(token.id);
    const whose = token.user ? ` for ${token.user.username}` : "";
    return (
      <Can mutation="revokeToken">
        <ConfirmButton
          label="Revoke"
          context={`token ${name}`}
          question={`Revoke token ${name} of ${token.app.name}${whose}? The gateway refuses it from now on.`}
          confirmLabel="Yes, revoke"
          {...action.button(token.id)}
          onConfirm={() => revoke(token)}
        />
      </Can>
    );
  });
}
