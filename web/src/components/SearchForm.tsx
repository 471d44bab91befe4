import { useEffect, useState, type FormEvent } from "react";
import { NAME_MAX_LENGTH } from "../../../server/src/kernel/limits";

interface SearchFormProps {
  /** id of the input; its label says what is searched. */
  id: string;
  label: string;
  /** Accessible name of the search landmark. */
  name: string;
  /** Longest search text, characters; by default a name's (kernel/limits.ts NAME_MAX_LENGTH). */
  maxLength?: number;
  /** The search in force (from the URL). */
  initial: string;
  onSearch: (value: string) => void;
}

/** A search box submitted as a form, with a "Clear search" button while a search is in force. */
export function SearchForm({ id, label, name, maxLength = NAME_MAX_LENGTH, initial, onSearch }: SearchFormProps) {
  const [value, setValue] = useState(initial);
  useEffect(() => setValue(initial), [initial]);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    onSearch(value.trim());
  }

  return (
    <form className="search" role="search" aria-label={name} onSubmit={onSubmit}>
      <label htmlFor={id}>{label}</label>
      <input id={id} type="search" value={value} onChange={(e) => setValue(e.target.value)} maxLength={maxLength} autoComplete="off" />
      <button type="submit" className="button secondary small">
        Search
      </button>
      {initial && (
        <button
          type="button"
          className="button secondary small"
          onClick={() => {
            setValue("");
            onSearch("");
          }}
        >
          Clear search
        </button>
      )}
    </form>
  );
}
