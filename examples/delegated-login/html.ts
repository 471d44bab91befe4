/**
 * HTML made safe by default: `html` escapes every value put into it (text and attribute
 * values alike), except fragments that `html` itself made. Everything a TPP or Tollgate sends
 * (the TPP's name, a creditor's name, a reference) only ever reaches a page through it.
 */
import { createHash } from "node:crypto";

/** A fragment of HTML made by {@link html}: put into another one as it is. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** `&`, `<`, `>`, `"` and `'` as entities: safe in text and in quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

type Value = string | number | Html | null | undefined | false | readonly Value[];

function render(value: Value): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}

/** The tagged template: html`<p>${name}</p>` escapes `name`; null, undefined and false print nothing; arrays are joined. */
export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  return new Html(strings.reduce((out, s, i) => out + s + (i < values.length ? render(values[i]!) : ""), ""));
}

/** The one stylesheet, inline (allowed by its hash in the Content-Security-Policy). */
const STYLE = `
:root { font: 16px/1.5 system-ui, sans-serif; color: #1f2937; background: #fff; }
body { margin: 0; }
main { max-width: 32rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.5rem; line-height: 1.3; }
.muted { color: #4b5563; }
label, legend { display: block; font-weight: 600; margin-top: 1rem; }
fieldset { border: 1px solid #6b7280; border-radius: .375rem; margin: 1rem 0; padding: .5rem 1rem 1rem; }
fieldset label { font-weight: 400; margin-top: .5rem; }
input[type=text], input[type=password] { box-sizing: border-box; width: 100%; font: inherit; padding: .5rem; margin-top: .25rem; border: 1px solid #6b7280; border-radius: .375rem; color: inherit; background: transparent; }
.hint { font-size: .875rem; color: #4b5563; margin: .25rem 0 0; }
.error { border: 1px solid #b91c1c; background: #fef2f2; color: #991b1b; padding: .75rem 1rem; border-radius: .375rem; }
.payment { border-left: 4px solid #1d4ed8; padding-left: 1rem; }
.actions { display: flex; gap: .75rem; margin-top: 1.5rem; flex-wrap: wrap; }
button { font: inherit; padding: .5rem 1.25rem; border-radius: .375rem; border: 1px solid #1d4ed8; cursor: pointer; }
button.primary { background: #1d4ed8; color: #fff; }
button.secondary { background: transparent; color: #1d4ed8; }
:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
@media (prefers-color-scheme: dark) {
  :root { color: #f3f4f6; background: #111827; }
  .muted, .hint { color: #d1d5db; }
  fieldset, input[type=text], input[type=password] { border-color: #9ca3af; }
  .error { border-color: #fca5a5; background: #450a0a; color: #fecaca; }
  .payment { border-left-color: #93c5fd; }
  button { border-color: #93c5fd; }
  button.primary { background: #93c5fd; color: #111827; }
  button.secondary { color: #93c5fd; }
}
`;

/** The script of the page that posts a `form_post.jwt` answer to the TPP at once. */
const AUTO_POST = "document.forms[0].submit();";

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/**
 * The Content-Security-Policy of every page: nothing loads from anywhere, the stylesheet and
 * the auto-post script are allowed by their hashes, no page may be framed (clickjacking).
 * No `form-action`: the answers to this application's own forms redirect to Tollgate and the
 * TPP, which browsers would check against it.
 */
export const CONTENT_SECURITY_POLICY = `default-src 'none'; style-src ${sha256(STYLE)}; script-src ${sha256(AUTO_POST)}; base-uri 'none'; frame-ancestors 'none'`;

/** A whole page: `lang`, a title, the bank's name, one `main` holding `body`. */
export function page(title: string, body: Html, bankName: string): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} – ${bankName}</title>
<style>${new Html(STYLE)}</style>
</head>
<body>
<main>
<p class="muted">${bankName}</p>
${body}
</main>
</body>
</html>
`.value;
}

/** The page that posts a signed authorization response (`form_post.jwt`) to the TPP: by script at once, or with its button. */
export function autoPostPage(action: string, response: string, bankName: string): string {
  return page(
    "Returning to the app",
    html`<h1>Returning to the app</h1>
<form method="post" action="${action}">
<input type="hidden" name="response" value="${response}">
<p>If nothing happens, continue by hand.</p>
<div class="actions"><button class="primary" type="submit">Continue</button></div>
</form>
<script>${new Html(AUTO_POST)}</script>`,
    bankName,
  );
}
