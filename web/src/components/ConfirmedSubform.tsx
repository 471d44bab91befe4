import { useEffect, useId, useRef, type FormEvent, type ReactNode } from "react";
import { useAction, type Action } from "../lib/useGraphQL";
import { ConfirmQuestion, useConfirmation } from "./ConfirmButton";
import { SubmitButton } from "./Field";
import { ActionNotices } from "./Notices";

/**
 * A form below a panel's list that changes something in use ("Edit API product
 * PSD2-AISP-v1"), named by its <h3> title, which takes focus when the form opens. Its submit
 * runs `check` (which throws a FormInputError for input to fix), if any, then asks `question` in
 * a popover beside the submit button: `confirmLabel` runs `onConfirm` (checked again), and
 * "Cancel" or Escape go back to the form. "Close" leaves it. The action's messages (the
 * server's refusals among them) follow the form.
 */
export function ConfirmedSubform({
  title,
  action: given,
  submitLabel,
  question,
  confirmLabel,
  check,
  onConfirm,
  onClose,
  children,
}: {
  title: ReactNode;
  /** The action that runs the change; none: the form's own. */
  action?: Action;
  submitLabel: string;
  question: string;
  confirmLabel: string;
  /** @throws FormInputError when the input cannot be sent; none: any input the fields allow can. */
  check?: () => void;
  /** Sends the change; resolves to the success message. */
  onConfirm: () => Promise<string>;
  onClose: () => void;
  children: ReactNode;
}) {
  const own = useAction();
  const action = given ?? own;
  const titleId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const { asking, setAsking, trigger, id, triggerProps } = useConfirmation<HTMLButtonElement>();

  useEffect(() => headingRef.current?.focus(), []);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(async () => {
      check?.();
      setAsking(true);
    });
  }

  function confirm() {
    setAsking(false);
    trigger.current?.focus();
    void action.run(async () => {
      check?.();
      return onConfirm();
    });
  }

  return (
    <form className="subform" onSubmit={onSubmit} aria-labelledby={titleId}>
      <h3 id={titleId} ref={headingRef} tabIndex={-1}>
        {title}
      </h3>
      {children}
      <div className="form-actions">
        <SubmitButton {...triggerProps} busy={action.pending !== null}>
          {submitLabel}
        </SubmitButton>
        {asking && <ConfirmQuestion id={id} question={question} confirmLabel={confirmLabel} trigger={trigger} onConfirm={confirm} onClose={() => setAsking(false)} />}
        <button type="button" className="button secondary" onClick={onClose}>
          Close
        </button>
      </div>
      <ActionNotices action={action} />
    </form>
  );
}
