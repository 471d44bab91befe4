import type { Action } from "../lib/useGraphQL";
import { ActionButton } from "./ActionButton";
import { Can } from "./Can";
import { ConfirmButton } from "./ConfirmButton";
import { actionsColumn, type Column } from "./DataTable";

/**
 * The actions column of a list whose rows can be edited and deleted, for those who may call
 * `mutation`: "Edit" (`onEdit`) and "Delete", which asks `question` and deletes on
 * `confirmLabel`. Both buttons are named for the row by `context` ("API product PSD2-AISP-v1");
 * `action`'s run keyed by the row's id makes its Delete busy.
 */
export function editDeleteColumn<Row extends { id: string }>(
  action: Action,
  onEdit: (row: Row) => void,
  onDelete: (row: Row) => void,
  texts: { mutation: string; context: (row: Row) => string; question: (row: Row) => string; confirmLabel: string },
): Column<Row> {
  return actionsColumn((row) => (
    <Can mutation={texts.mutation}>
      <ActionButton label="Edit" context={texts.context(row)} onClick={() => onEdit(row)} />
      <ConfirmButton
        label="Delete"
        context={texts.context(row)}
        question={texts.question(row)}
        confirmLabel={texts.confirmLabel}
        {...action.button(row.id)}
        onConfirm={() => onDelete(row)}
      />
    </Can>
  ));
}
