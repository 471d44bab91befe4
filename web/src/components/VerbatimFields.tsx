import { URL_MAX_LENGTH } from "../../../server/src/kernel/limits";
import { TextField } from "./Field";

type TextFieldProps = Parameters<typeof TextField>[0];

/**
 * A labelled text field for text typed to the letter (a name of a restricted form, a client
 * id, a claim, scopes): no autofill and no spell check. Takes TextField's other props.
 */
export function VerbatimField(props: Omit<TextFieldProps, "autoComplete" | "spellCheck">) {
  return <TextField autoComplete="off" spellCheck={false} {...props} />;
}

/** A labelled URL field (type url, at most URL_MAX_LENGTH characters, typed to the letter); `placeholder` shows an example. */
export function UrlField(props: Omit<TextFieldProps, "type" | "maxLength" | "autoComplete" | "spellCheck">) {
  return <VerbatimField type="url" maxLength={URL_MAX_LENGTH} {...props} />;
}

/** A required "Name" field of a restricted form: `pattern`, at most `maxLength` characters, typed to the letter. */
export function NameField(props: Omit<TextFieldProps, "label" | "required" | "autoComplete" | "spellCheck"> & { pattern: string; maxLength: number }) {
  return <VerbatimField label="Name" required {...props} />;
}
