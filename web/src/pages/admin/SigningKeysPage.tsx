import { Can } from "../../components/Can";
import { useMemo } from "react";
import { ROTATE_SIGNING_KEY, SIGNING_KEYS, type SigningAlgorithm, type SigningKey } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { AdminPage } from "../../components/AdminPage";
import { ConfirmButton } from "../../components/ConfirmButton";
import { actionsColumn, type Column } from "../../components/DataTable";
import { Badge, DateTime } from "../../components/Format";
import { ListTable } from "../../components/ListTable";
import { ActionNotices } from "../../components/Notices";
import { Panel } from "../../components/Panel";
import { CopyButton } from "../../components/SecretPanel";
import { browserTimeZone, eventTimeFormat } from "../../lib/audit";
import { useAction, useQuery } from "../../lib/useGraphQL";

/** Characters of a key id shown (of 22): enough to tell keys apart at a glance. */
const KID_SHOWN = 8;

/** A key id as the page shows it: its start. */
const shortKid = (kid: string) => `${kid.slice(0, KID_SHOWN)}…`;

/** Where a key's private half is, in words. */
const BACKENDS: Record<SigningKey["backend"], string> = { envelope: "sealed", pkcs11: "HSM" };

/** The order of the table: by algorithm, then current, next, retired, the newest first. */
const STATE_ORDER: Record<SigningKey["state"], number> = { current: 0, next: 1, retired: 2 };
const byAlgorithmAndState = (a: SigningKey, b: SigningKey) =>
  a.alg.localeCompare(b.alg) || STATE_ORDER[a.state] - STATE_ORDER[b.state] || b.createdAt.localeCompare(a.createdAt);

/** When a next key signs from, or until when a retired key stays published; nothing for a current key. */
function Publication({ signingKey: k }: { signingKey: SigningKey }) {
  if (k.state === "next") {
    return (
      <>
        signs from <DateTime value={k.signsFrom} />
      </>
    );
  }
  if (k.state === "retired") {
    return k.signedUntil ? (
      <>
        published until <DateTime value={k.signedUntil} />
      </>
    ) : (
      <span className="muted">signed nothing: removed shortly</span>
    );
  }
  return <span className="muted">—</span>;
}

/**
 * /admin/signing-keys: the server's own signing keys (never their private halves) by
 * algorithm, with their states and dates, and "Rotate now" on each algorithm's current key:
 * its next key becomes current if it has been published long enough, else the page says from
 * when it may.
 */
export function SigningKeysPage() {
  const query = useQuery(SIGNING_KEYS);
  const action = useAction();
  const zone = useMemo(browserTimeZone, []);
  const time = useMemo(() => eventTimeFormat(), []);

  function rotate(alg: SigningAlgorithm) {
    void action.run(async () => {
      const { rotateSigningKey: rotation } = await graphql(ROTATE_SIGNING_KEY, { alg });
      query.setData(() => ({ signingKeys: rotation.keys }));
      if (rotation.promoted) return `${alg} rotated: the next key signs now, the former key is retired, and a new next key is published.`;
      const from = rotation.signsFrom ? time.format(new Date(rotation.signsFrom)) : "later";
      return `${alg} not rotated yet: its next key may sign from ${from}, once clients have had time to fetch it. Rotate again from then.`;
    }, alg);
  }

  const columns: Column<SigningKey>[] = [
    {
      header: "Key id",
      rowHeader: true,
      cell: (k) => (
        <>
          <code className="key-id" title={k.kid}>
            {shortKid(k.kid)}
          </code>{" "}
          <CopyButton value={k.kid} what={`key id ${shortKid(k.kid)}`} />
        </>
      ),
    },
    { header: "Algorithm", cell: (k) => k.alg },
    { header: "State", cell: (k) => <Badge tone={k.state === "current" ? "ok" : "neutral"}>{k.state}</Badge> },
    { header: "Private key", cell: (k) => BACKENDS[k.backend] ?? k.backend },
    { header: "Created", cell: (k) => <DateTime value={k.createdAt} /> },
    { header: "Activated", cell: (k) => <DateTime value={k.activatedAt} /> },
    { header: "Retired", cell: (k) => <DateTime value={k.retiredAt} /> },
    { header: "Signs from / until", cell: (k) => <Publication signingKey={k} /> },
    actionsColumn((k) =>
      k.state === "current" ? (
        <Can mutation="rotateSigningKey">
          <ConfirmButton
            label="Rotate now"
            context={`${k.alg} key ${shortKid(k.kid)}`}
            question={`Rotate the ${k.alg} key now? Its next key takes over; this one is retired.`}
            confirmLabel="Yes, rotate"
            className="button secondary small"
            {...action.button(k.alg)}
            onConfirm={() => rotate(k.alg)}
          />
        </Can>
      ) : null,
    ),
  ];

  return (
    <AdminPage
      title="Signing keys"
      intro={`The keys Tollgate signs tokens and responses with, published in its JWK Set. Their private halves are sealed under the key-encryption key in the database, or kept in an HSM. A next key is published before it signs, so that clients' cached copies know it; a retired key stays published until what it signed has expired. Times are in your browser's time zone, ${zone}.`}
    >
      <Panel title="Keys">
        <ActionNotices action={action} />
        <ListTable
          caption="Signing keys"
          list={{ ...query, nodes: [...(query.data?.signingKeys ?? [])].sort(byAlgorithmAndState) }}
          columns={columns}
          rowKey={(k) => k.kid}
          empty="There are no signing keys yet."
          compact
        />
      </Panel>
    </AdminPage>
  );
}
