/** Where the SPA sends the browser: its own error page, or away (back into the OAuth flow). */

/** The /error page's URL for an error code and description. */
export function errorPageUrl(error: string, errorDescription?: string): string {
  const params = new URLSearchParams({ error });
  if (errorDescription) params.set("error_description", errorDescription);
  return `/error?${params.toString()}`;
}

/**
 * Leaves the SPA for a URL the server chose (the authorization endpoint or the client's
 * redirect URI). Returns false, without navigating, for a URL that would run script.
 */
export function leaveTo(redirectTo: string): boolean {
  let url: URL;
  try {
    url = new URL(redirectTo, window.location.href);
  } catch {
    return false;
  }
  if (["javascript:", "data:", "vbscript:", "blob:"].includes(url.protocol)) return false;
  window.location.assign(url.href);
  return true;
}
