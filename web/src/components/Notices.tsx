import type { Action } from "../lib/useGraphQL";

/** An error, announced when it appears. */
export function ErrorAlert({ message, id }: { message: string | null | undefined; id?: string }) {
  if (!message) return null;
  return (
    <p id={id} role="alert" className="alert">
      {message}
    </p>
  );
}

/**
 * A live region for success and progress messages. It is always rendered (empty when there is
 * nothing to say) so that screen readers announce text put into it.
 */
export function StatusMessage({ text, className = "status" }: { text: string; className?: string }) {
  return (
    <p role="status" className={text ? `${className} success` : className}>
      {text}
    </p>
  );
}

/** The error and success messages of an {@link Action}. */
export function ActionNotices({ action }: { action: Action }) {
  return (
    <>
      <ErrorAlert message={action.error} />
      <StatusMessage text={action.status} />
    </>
  );
}

/**
 * The status line of a step sending the user's answer: what is under way (`words[pending]`),
 * "Redirecting…" once the answer took and the browser is `leaving`, else nothing.
 */
export function PendingStatus<K extends string>({ pending, leaving, words }: { pending: K | null; leaving: boolean; words: Record<K, string> }) {
  return (
    <p role="status" className="status">
      {pending !== null ? words[pending] : leaving ? "Redirecting…" : ""}
    </p>
  );
}
