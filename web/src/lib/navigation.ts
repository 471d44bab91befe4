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

/**
 * The `next` parameter of the console's sign-in: a path on this origin ("/admin/apps?x=1"),
 * or null. Refuses anything a browser could read as another origin: "//host", "/\host"
 * (browsers treat "\" as "/"), control characters, or a URL with a scheme.
 */
export function safeNextPath(raw: string | null): string | null {
  if (!raw || !raw.startsWith("/") || raw.startsWith("//")) return null;
  if (/[\\\u0000-\u001f\u007f]/.test(raw)) return null;
  let url: URL;
  try {
    url = new URL(raw, window.location.origin);
  } catch {
    return null;
  }
  if (url.origin !== window.location.origin) return null;
  return `${url.pathname}${url.search}${url.hash}`;
}

/** Paths the SPA renders itself; any other same-origin path is loaded from the server. */
export function isSpaPath(path: string): boolean {
  return /^\/(admin|account)(?:[/?#]|$)/.test(path) || path === "/" || /^\/[?#]/.test(path);
}

/** The console's sign-in page, coming back to `next` afterwards. */
export function loginUrl(next: string): string {
  return `/login?${new URLSearchParams({ next }).toString()}`;
}
