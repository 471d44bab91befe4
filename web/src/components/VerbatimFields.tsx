import { URL_MAX_LENGTH } from "../../../server/src/kernel/limits";
import { TextField } from "./Field";

type TextFieldProps = Parameters<typeof TextField>[0];

/** An input's props for text typed to the letter: no capitalization, autocorrection or spell check (phones' keyboards). */
export const VERBATIM_TYPING = { autoCapitalize: "none", autoCorrect: "off", spellCheck: false } as const;

/**
 * A labelled text field for text typed to the letter (a name of a restricted form, a client
 * id, a claim, scopes): no autofill, and VERBATIM_TYPING. Takes TextField's other props.
 */
export function VerbatimField(props: Omit<TextFieldProps, "autoComplete" | keyof typeof VERBATIM_TYPING>) {
  return <TextField autoComplete="off" {...VERBATIM_TYPING} {...props} />;
}

/** A labelled URL field (type url, at most URL_MAX_LENGTH characters, typed to the letter); `placeholder` shows an example. */
export function UrlField(props: Omit<TextFieldProps, "type" | "maxLength" | "autoComplete" | keyof typeof VERBATIM_TYPING>) {
  return <VerbatimField type="url" maxLength={URL_MAX_LENGTH} {...props} />;
}

/** A required "Name" field of a restricted form: `pattern`, at most `maxLength` characters, typed to the letter. */
export function NameField(props: Omit<TextFieldProps, "label" | "required" | "autoComplete" | keyof typeof VERBATIM_TYPING> & { pattern: string; maxLength: number }) {
  return <VerbatimField label="Name" required {...props} />;
}
