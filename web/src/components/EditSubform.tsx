import type { ComponentProps } from "react";
import { ConfirmedSubform } from "./ConfirmedSubform";

/**
 * The edit form of a named thing below a panel's list: a ConfirmedSubform titled
 * "Edit <kind> <name>" ("Edit API product PSD2-AISP-v1"), submitted by "Save <kind>", that asks
 * "Save the changes to <name>? <consequence>" and runs `onSave` on "Yes, save". The other
 * props (check, action, onClose, children) are ConfirmedSubform's.
 */
export function EditSubform({
  kind,
  name,
  consequence,
  onSave,
  ...form
}: Omit<ComponentProps<typeof ConfirmedSubform>, "title" | "submitLabel" | "question" | "confirmLabel" | "onConfirm"> & {
  /** What is edited, in lowercase but for proper names ("API product", "identity provider"). */
  kind: string;
  name: string;
  /** When and where the saved changes apply, a sentence. */
  consequence: string;
  /** Sends the change; resolves to the success message. */
  onSave: () => Promise<string>;
}) {
  return (
    <ConfirmedSubform
      title={`Edit ${kind} ${name}`}
      submitLabel={`Save ${kind}`}
      question={`Save the changes to ${name}? ${consequence}`}
      confirmLabel="Yes, save"
      onConfirm={onSave}
      {...form}
    />
  );
}
