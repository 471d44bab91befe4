import { useEffect, useRef, useState } from "react";
import { SET_TEMPORARY_PASSWORD, UNBLOCK_USER, type TemporaryPassword, type User } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { ConfirmButton } from "../../components/ConfirmButton";
import { ExactTime } from "../../components/ExactTime";
import { ActionNotices } from "../../components/Notices";
import { Panel } from "../../components/Panel";
import { SecretValues } from "../../components/SecretPanel";
import { useCan, useSession } from "../../lib/session";
import { useAction } from "../../lib/useGraphQL";
import { statusText, untilText } from "../../lib/user-status";

/** A temporary password, shown once (the server keeps only its hash); takes focus when it appears. */
function TemporaryPasswordShown({ issued, onDone }: { issued: TemporaryPassword; onDone: () => void }) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), [issued]);
  return (
    <section className="secret-panel" aria-labelledby="temporary-password-title">
      <h3 id="temporary-password-title" ref={headingRef} tabIndex={-1}>
        Temporary password of {issued.user.username}
      </h3>
      <p className="secret-warning">
        <strong>Give it to {issued.user.username} now: it won't be shown again.</strong> It signs in until <ExactTime value={issued.validUntil} />;
        at that sign-in they choose their own password.
      </p>
      <SecretValues values={[{ what: "temporary password", value: issued.password }]} />
      <div className="actions">
        <button type="button" className="button primary" onClick={onDone}>
          I have given the password
        </button>
      </div>
    </section>
  );
}

/**
 * "Sign-in" of a user (part of /admin/users): their block after too many failed sign-ins
 * with "Unblock", and "Set a temporary password" (support staff: for users without a staff
 * role only, as the server rules), each with a confirmation and audited by the server.
 */
export function UserSupport({ user, onChanged }: { user: User; onChanged: (user: User) => void }) {
  const action = useAction();
  const can = useCan();
  const { role } = useSession().user;
  const [issued, setIssued] = useState<TemporaryPassword | null>(null);
  const blocked = statusText(user) !== user.status;
  const mayReset = can("setTemporaryPassword") && (role === "admin" || user.role === "user");

  function unblock() {
    void action.run(async () => {
      const { unblockUser } = await graphql(UNBLOCK_USER, { id: user.id });
      onChanged(unblockUser);
      return `${unblockUser.username} is unblocked: they can sign in again.`;
    }, "unblock");
  }

  function setTemporaryPassword() {
    void action.run(async () => {
      const { setTemporaryPassword: set } = await graphql(SET_TEMPORARY_PASSWORD, { id: user.id });
      onChanged(set.user);
      setIssued(set);
      return `A temporary password was set for ${set.user.username}.`;
    }, "password");
  }

  return (
    <Panel title="Sign-in">
      <ActionNotices action={action} />
      <p>{blocked ? `${statusText(user)}: too many failed sign-in attempts.` : `Not blocked: ${user.status}.`}</p>
      {user.temporaryPasswordUntil && <p>Signs in with a temporary password {untilText(user.temporaryPasswordUntil)}, then chooses their own.</p>}
      {issued && <TemporaryPasswordShown issued={issued} onDone={() => setIssued(null)} />}
      <div className="form-actions">
        {blocked && can("unblockUser") && (
          <ConfirmButton
            label="Unblock"
            context={user.username}
            question={`Unblock ${user.username}? They can try to sign in again at once.`}
            confirmLabel="Yes, unblock"
            className="button secondary small"
            {...action.button("unblock")}
            onConfirm={unblock}
          />
        )}
        {mayReset && (
          <ConfirmButton
            label="Set a temporary password"
            context={`for ${user.username}`}
            question={`Set a temporary password for ${user.username}? Their current password stops working and they are signed out; the new one is shown once.`}
            confirmLabel="Yes, set it"
            {...action.button("password")}
            onConfirm={setTemporaryPassword}
          />
        )}
      </div>
    </Panel>
  );
}
