import { useId, type FormEvent, type ReactNode } from "react";
import { useCan } from "../lib/session";
import { useAction, type Action } from "../lib/useGraphQL";
import { SubmitButton } from "./Field";
import { ActionNotices } from "./Notices";
import { Panel } from "./Panel";

interface FormProps {
  title: string;
  /** The mutation the form runs: its submit button is busy meanwhile, and its messages follow the form. */
  action: Action;
  submitLabel: string;
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  /** The form's fields. */
  children: ReactNode;
  /** The admin API mutation it runs (lib/roles.ts): a role that may not call it sees the fields read-only (PanelForm) or no form (Subform). */
  mutation?: string;
}

/** The submit button of a form of `action`, busy while the action runs. */
function FormActions({ action, label }: { action: Action; label: string }) {
  return (
    <div className="form-actions">
      <SubmitButton busy={action.pending !== null}>{label}</SubmitButton>
    </div>
  );
}

/** A console panel holding one form: `intro`, the fields in a grid with the submit button, then the action's messages. */
export function PanelForm({ title, intro, action, submitLabel, onSubmit, children, mutation }: FormProps & { intro?: ReactNode }) {
  const can = useCan();
  if (mutation !== undefined && !can(mutation)) {
    return (
      <Panel title={title}>
        {intro}
        <fieldset className="form-grid" disabled>
          <legend className="visually-hidden">{title} (read-only)</legend>
          {children}
        </fieldset>
      </Panel>
    );
  }
  return (
    <Panel title={title}>
      {intro}
      <form className="form-grid" onSubmit={onSubmit}>
        {children}
        <FormActions action={action} label={submitLabel} />
      </form>
      <ActionNotices action={action} />
    </Panel>
  );
}

/** A form below a panel's list ("Create an API"), named by its <h3> title: the fields, the submit button, the action's messages. */
export function Subform({ title, action, submitLabel, onSubmit, children, mutation }: FormProps) {
  const titleId = useId();
  const can = useCan();
  if (mutation !== undefined && !can(mutation)) return null;
  return (
    <form className="subform" onSubmit={onSubmit} aria-labelledby={titleId}>
      <h3 id={titleId}>{title}</h3>
      {children}
      <FormActions action={action} label={submitLabel} />
      <ActionNotices action={action} />
    </form>
  );
}

/**
 * The action and submit handler of a form that creates something (a {@link Subform}'s
 * `action` and `onSubmit`): the submit runs `create`, which sends the form and resolves to
 * the success message (or throws a FormInputError for input to fix), then each of `after`
 * (reset the fields, load the list again).
 */
export function useCreate(create: () => Promise<string>, after: ReadonlyArray<() => void>) {
  const action = useAction();
  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(async () => {
      const message = await create();
      for (const then of after) then();
      return message;
    });
  }
  return { action, onSubmit };
}
