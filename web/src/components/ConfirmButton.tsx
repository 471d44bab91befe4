import { useEffect, useId, useRef, useState, type ReactNode, type RefObject } from "react";

/**
 * The confirmation step of an action: `question`, then `confirmLabel` (which runs `onConfirm`)
 * and "Cancel", as a group named by the question. `confirmRef` is the confirm button, for the
 * caller to focus; `confirmClassName` its style (a danger button unless given).
 */
export function ConfirmQuestion({
  question,
  confirmLabel,
  onConfirm,
  onCancel,
  confirmRef,
  confirmClassName = "button danger small",
}: {
  question: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  confirmRef: RefObject<HTMLButtonElement | null>;
  confirmClassName?: string;
}) {
  const questionId = useId();
  return (
    <span className="confirm" role="group" aria-labelledby={questionId}>
      <span id={questionId} className="confirm-question">
        {question}
      </span>
      <span className="confirm-buttons">
        <button ref={confirmRef} type="button" className={confirmClassName} onClick={onConfirm}>
          {confirmLabel}
        </button>
        <button type="button" className="button secondary small" onClick={onCancel}>
          Cancel
        </button>
      </span>
    </span>
  );
}

/**
 * An action with an inline confirmation step, destructive by default: the button asks
 * `question` with "confirm" and "Cancel" buttons in its place. Focus moves to the confirm
 * button, and back to the first button when cancelled. A primary button (`className` with
 * `primary`, e.g. "Approve") is confirmed with a primary button too, never a danger one.
 *
 * @param context - words read by screen readers after the visible label ("consent for Acme
 *   Budgeting"), so that each of a table's buttons has a distinct name.
 */
export function ConfirmButton({
  label,
  context,
  question,
  confirmLabel,
  onConfirm,
  disabled = false,
  busy = false,
  className = "button danger small",
}: {
  label: string;
  context?: string;
  question: ReactNode;
  confirmLabel: string;
  onConfirm: () => unknown;
  disabled?: boolean;
  busy?: boolean;
  className?: string;
}) {
  const [asking, setAsking] = useState(false);
  const wasAsking = useRef(false);
  const triggerRef = useRef<HTMLButtonElement>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (asking) confirmRef.current?.focus();
    else if (wasAsking.current) triggerRef.current?.focus();
    wasAsking.current = asking;
  }, [asking]);

  if (asking) {
    return (
      <ConfirmQuestion
        question={question}
        confirmLabel={confirmLabel}
        confirmRef={confirmRef}
        confirmClassName={className.split(/\s+/).includes("primary") ? "button primary small" : "button danger small"}
        onConfirm={() => {
          setAsking(false);
          void onConfirm();
        }}
        onCancel={() => setAsking(false)}
      />
    );
  }
  return (
    <button
      ref={triggerRef}
      type="button"
      className={className}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
      onClick={() => setAsking(true)}
    >
      {label}
      {context && <span className="visually-hidden"> {context}</span>}
    </button>
  );
}
