import { CheckboxField } from "../../components/Field";

/** "Require PKCE", as the forms that create and change an app offer it. */
export function RequirePkceField({ checked, onChange }: { checked: boolean; onChange: (checked: boolean) => void }) {
  return (
    <CheckboxField
      label="Require PKCE"
      hint="Recommended for every app (RFC 9700 §2.1.1): authorization requests without a code_challenge (S256) are refused."
      checked={checked}
      onChange={onChange}
    />
  );
}
