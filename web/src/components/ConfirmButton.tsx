import { useEffect, useId, useLayoutEffect, useRef, useState, type ReactNode, type RefObject } from "react";

/** Room kept between the confirmation and the viewport's edges, and below (or above) its trigger, in CSS pixels. */
const EDGE = 8;
const GAP = 4;

/**
 * Places the confirmation (fixed, in the top layer) under its trigger, its right edge on the
 * trigger's, or above the trigger when there is no room below, always inside the viewport.
 */
function place(popover: HTMLElement, trigger: HTMLElement) {
  const anchor = trigger.getBoundingClientRect();
  const width = popover.offsetWidth;
  const height = popover.offsetHeight;
  const viewportWidth = document.documentElement.clientWidth;
  const viewportHeight = document.documentElement.clientHeight;
  const left = Math.max(EDGE, Math.min(anchor.right - width, viewportWidth - EDGE - width));
  let top = anchor.bottom + GAP;
  if (top + height > viewportHeight - EDGE) top = anchor.top - GAP - height >= EDGE ? anchor.top - GAP - height : Math.max(EDGE, viewportHeight - EDGE - height);
  popover.style.left = `${left}px`;
  popover.style.top = `${top}px`;
}

/**
 * The confirmation step of an action: `question`, then `confirmLabel` (which runs
 * `onConfirm`; `confirmClassName` its style, a danger button unless given) and "Cancel", as
 * a group named by the question, in a popover beside its
 * trigger (the top layer: no table cell or scrolling frame clips it). The confirm button
 * takes focus. Escape and "Cancel" close it and give focus back to the trigger; a click
 * outside it closes it. It stays next to its trigger in the document, so the Tab order
 * goes on from the trigger.
 *
 * @param trigger - the button that opened it (its anchor).
 * @param onClose - called on Escape, "Cancel" or a click outside.
 */
export function ConfirmQuestion({
  id,
  question,
  confirmLabel,
  trigger,
  onConfirm,
  onClose,
  confirmClassName = "button danger small",
}: {
  id?: string;
  question: ReactNode;
  confirmLabel: string;
  trigger: RefObject<HTMLElement | null>;
  onConfirm: () => void;
  onClose: () => void;
  confirmClassName?: string;
}) {
  const questionId = useId();
  const popoverRef = useRef<HTMLDivElement>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const closeRef = useRef(onClose);
  closeRef.current = onClose;

  useLayoutEffect(() => {
    const popover = popoverRef.current;
    const anchor = trigger.current;
    if (!popover || !anchor) return;
    popover.showPopover();
    const follow = () => place(popover, anchor);
    follow();
    confirmRef.current?.focus();
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape") return;
      event.preventDefault();
      closeRef.current();
      anchor.focus();
    };
    const onPointer = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!popover.contains(target) && !anchor.contains(target)) closeRef.current();
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    window.addEventListener("resize", follow);
    window.addEventListener("scroll", follow, { capture: true, passive: true });
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
      window.removeEventListener("resize", follow);
      window.removeEventListener("scroll", follow, { capture: true });
      if (popover.matches(":popover-open")) popover.hidePopover();
    };
  }, [trigger]);

  function cancel() {
    onClose();
    trigger.current?.focus();
  }

  return (
    <div ref={popoverRef} id={id} popover="manual" className="confirm" role="group" aria-labelledby={questionId}>
      <span id={questionId} className="confirm-question">
        {question}
      </span>
      <span className="confirm-buttons">
        <button ref={confirmRef} type="button" className={confirmClassName} onClick={onConfirm}>
          {confirmLabel}
        </button>
        <button type="button" className="button secondary small" onClick={cancel}>
          Cancel
        </button>
      </span>
    </div>
  );
}

/**
 * Whether a confirmation is open, and the props of the button that opens it: the trigger's
 * ref, and `aria-expanded` and `aria-controls` (a disclosure) for assistive technology.
 */
export function useConfirmation<T extends HTMLElement>() {
  const [asking, setAsking] = useState(false);
  const trigger = useRef<T>(null);
  const id = useId();
  return {
    asking,
    setAsking,
    trigger,
    id,
    triggerProps: { ref: trigger, "aria-expanded": asking, "aria-controls": asking ? id : undefined },
  };
}

/**
 * An action with a confirmation step, destructive by default: the button opens a
 * {@link ConfirmQuestion} beside it with `question`, "confirm" and "Cancel"; Escape or
 * "Cancel" close it. A primary button (`className` with `primary`, e.g. "Approve") is
 * confirmed with a primary button too, never a danger one.
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
  const { asking, setAsking, trigger, id, triggerProps } = useConfirmation<HTMLButtonElement>();
  // A busy or disabled button closes its question.
  useEffect(() => {
    if (disabled || busy) setAsking(false);
  }, [disabled, busy, setAsking]);

  return (
    <>
      <button
        {...triggerProps}
        type="button"
        className={className}
        disabled={disabled || busy}
        aria-busy={busy || undefined}
        onClick={() => setAsking((was) => !was)}
      >
        {label}
        {context && <span className="visually-hidden"> {context}</span>}
      </button>
      {asking && (
        <ConfirmQuestion
          id={id}
          question={question}
          confirmLabel={confirmLabel}
          trigger={trigger}
          confirmClassName={className.split(/\s+/).includes("primary") ? "button primary small" : "button danger small"}
          onConfirm={() => {
            setAsking(false);
            trigger.current?.focus();
            void onConfirm();
          }}
          onClose={() => setAsking(false)}
        />
      )}
    </>
  );
}
