import { SubmitButton } from "./Field";
import { ErrorAlert } from "./Notices";

/**
 * The foot of a filter form: why the filters were refused (if they were), "Search", and
 * "Clear filters" while the list is filtered.
 *
 * @param errorId - the id the fields' aria-describedby points at while `error` is shown.
 * @param onClear - shows the list unfiltered again.
 */
export function FilterActions({ errorId, error, busy, filtered, onClear }: { errorId: string; error: string; busy: boolean; filtered: boolean; onClear: () => void }) {
  return (
    <>
      <ErrorAlert id={errorId} message={error} />
      <div className="form-actions">
        <SubmitButton busy={busy}>Search</SubmitButton>
        {filtered && (
          <button type="button" className="button secondary" onClick={onClear}>
            Clear filters
          </button>
        )}
      </div>
    </>
  );
}
