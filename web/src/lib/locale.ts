/**
 * The locale the sign-in and consent pages format dates and amounts in: the first of the
 * relying party's `ui_locales` (OpenID Connect Core §3.1.2.1: the PSU's preferred languages, in
 * order) that this browser can format, else the browser's own language. The pages' words are
 * English whatever the locale.
 * @param uiLocales - BCP 47 tags, as the request sent them.
 * @param fallback - the browser's language (`navigator.language`).
 */
export function pageLocale(uiLocales: readonly string[], fallback: string): string {
  for (const tag of uiLocales) {
    try {
      if (Intl.DateTimeFormat.supportedLocalesOf([tag]).length > 0) return tag;
    } catch {
      // A malformed tag (RangeError): the next one.
    }
  }
  return fallback;
}
