import { useEffect, useId, useRef, useState } from "react";
import { getSession } from "../api/session";
import { idleState, lastServerAnswer, onServerAnswer } from "../lib/activity";
import { useSession } from "../lib/session";

/** m:ss */
function clock(seconds: number): string {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
}

/**
 * The warning before a staff member's session ends for inactivity (ADMIN_IDLE_SECONDS, counted
 * from the server's last answer): a modal dialog with the time left, "Stay signed in" (a
 * request, which the server counts as activity; Escape does the same) and "Sign out". When
 * the time is up the console signs out and the sign-in page says why.
 *
 * @param idleSeconds - the session's limit, seconds.
 */
export function IdleNotice({ idleSeconds }: { idleSeconds: number }) {
  const { signOut } = useSession();
  const [lastAnswer, setLastAnswer] = useState(lastServerAnswer);
  const [now, setNow] = useState(Date.now);
  const [failed, setFailed] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);
  const headingId = useId();
  const textId = useId();
  const { secondsLeft, warn } = idleState(lastAnswer, idleSeconds, now);

  useEffect(() => onServerAnswer(setLastAnswer), []);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  useEffect(() => {
    const d = dialog.current;
    if (warn && d && !d.open) d.showModal();
    if (!warn && d?.open) d.close();
  }, [warn]);
  useEffect(() => {
    if (secondsLeft === 0) void signOut({ idleSeconds });
  }, [secondsLeft, idleSeconds, signOut]);

  async function stay() {
    setFailed(false);
    try {
      const session = await getSession();
      if (!session.user) await signOut({ idleSeconds });
    } catch {
      setFailed(true);
    }
  }

  return (
    <dialog
      ref={dialog}
      className="idle-notice"
      aria-labelledby={headingId}
      aria-describedby={textId}
      onCancel={(event) => {
        event.preventDefault();
        void stay();
      }}
    >
      <h2 id={headingId}>You will be signed out soon</h2>
      <p id={textId}>
        For security, the console signs you out after {Math.round(idleSeconds / 60)} minutes without activity. Time left:{" "}
        <strong>
          <time dateTime={`PT${secondsLeft}S`}>{clock(secondsLeft)}</time>
        </strong>
        .
      </p>
      {failed && (
        <p role="alert" className="inline-alert">
          The server could not be reached. Check your connection and try again.
        </p>
      )}
      <div className="actions">
        <button type="button" className="button" autoFocus onClick={() => void stay()}>
          Stay signed in
        </button>
        <button type="button" className="button secondary" onClick={() => void signOut()}>
          Sign out
        </button>
      </div>
    </dialog>
  );
}
