import { SCOPE_DESCRIPTION_MAX_LENGTH } from "../../../server/src/kernel/limits";
import type { ScopeRow } from "../lib/scope-descriptions";
import { TextField } from "./Field";

/**
 * The description of each scope of an API product form (lib/scope-descriptions.ts), as end
 * users will read it on the consent and Account pages. A new scope's field starts empty; a
 * known scope's shows its stored description, which an edit changes for every product with it.
 */
export function ScopeDescriptionFields({ rows, onChange }: { rows: readonly ScopeRow[]; onChange: (name: string, description: string) => void }) {
  return (
    <fieldset className="fieldset">
      <legend>Scope descriptions</legend>
      <p className="hint">
        Each scope needs a description written for end users: the consent and Account pages show it, never the scope's code. A description
        belongs to the scope: changing it changes it for every product with the scope.
      </p>
      {rows.length === 0 ? (
        <p className="hint">The product has no scopes: list them in the Scopes field.</p>
      ) : (
        <div className="form-grid">
          {rows.map((row) => (
            <TextField
              key={row.name}
              label={
                <>
                  Description of <code>{row.name}</code>
                </>
              }
              hint={row.isNew ? "New scope: required." : undefined}
              value={row.description}
              onChange={(description) => onChange(row.name, description)}
              maxLength={SCOPE_DESCRIPTION_MAX_LENGTH}
              aria-required
              autoComplete="off"
            />
          ))}
        </div>
      )}
    </fieldset>
  );
}
