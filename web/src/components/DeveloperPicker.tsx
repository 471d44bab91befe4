import { useId, useState } from "react";
import { Link } from "react-router";
import { NAME_MAX_LENGTH } from "../../../server/src/kernel/limits";
import { DEVELOPER_OPTIONS, type DeveloperOption } from "../api/admin";
import { developerOptionLabel } from "../lib/developers";
import { routes } from "../lib/routes";
import { useDebouncedValue } from "../lib/useDebouncedValue";
import { useQuery } from "../lib/useGraphQL";
import { ErrorAlert } from "./Notices";

/** How many developers the picker lists at once. */
const SHOWN = 20;

/** What the live region under the search says about the developers listed. */
function summary(count: number, more: boolean, search: string): string {
  const matching = search ? ` whose email or name contains “${search}”` : "";
  if (count === 0) return search ? `No developer's email or name contains “${search}”.` : "";
  if (more) return `The first ${count} developers${matching}: type more to narrow the list.`;
  return `${count} ${count === 1 ? "developer" : "developers"}${matching}.`;
}

/**
 * "Developer" of a form (the owner of a new app): a search field, sent as the typing pauses
 * (`developers(search:)`), and the developers found as radio buttons. The chosen developer
 * stays listed, and chosen, while other searches run.
 */
export function DeveloperPicker({ value, onChange }: { value: DeveloperOption | null; onChange: (developer: DeveloperOption) => void }) {
  const id = useId();
  const [text, setText] = useState("");
  const search = useDebouncedValue(text.trim());
  const query = useQuery(DEVELOPER_OPTIONS, search ? { search, first: SHOWN } : { first: SHOWN });
  const found = query.data?.developers.nodes ?? [];
  const listed = value && !found.some((d) => d.id === value.id) ? [value, ...found] : found;
  const searching = query.loading || search !== text.trim();

  return (
    <fieldset className="fieldset">
      <legend>Developer</legend>
      <div className="field">
        <label htmlFor={`${id}-search`}>Search developers</label>
        <p id={`${id}-hint`} className="hint field-hint">
          By email or name. The app belongs to the developer you choose.
        </p>
        <input
          id={`${id}-search`}
          type="search"
          value={text}
          maxLength={NAME_MAX_LENGTH}
          autoComplete="off"
          aria-describedby={`${id}-hint ${id}-summary`}
          onChange={(e) => setText(e.target.value)}
          // Enter searches at once rather than submitting the whole form.
          onKeyDown={(e) => e.key === "Enter" && e.preventDefault()}
        />
      </div>
      <p id={`${id}-summary`} role="status" className="hint">
        {searching ? "Searching…" : query.data ? summary(found.length, query.data.developers.pageInfo.hasNextPage, search) : ""}
      </p>
      <ErrorAlert message={query.error} />
      {query.data && !search && found.length === 0 && (
        <p className="empty">
          An app belongs to a developer, and there are no developers yet. <Link to={routes.organizations()}>Add one to an organization</Link> first.
        </p>
      )}
      {listed.map((developer) => (
        <div className="check" key={developer.id}>
          <input
            id={`${id}-${developer.id}`}
            type="radio"
            name={`${id}-developer`}
            required
            checked={value?.id === developer.id}
            onChange={() => onChange(developer)}
          />
          <label htmlFor={`${id}-${developer.id}`}>{developerOptionLabel(developer)}</label>
        </div>
      ))}
    </fieldset>
  );
}
