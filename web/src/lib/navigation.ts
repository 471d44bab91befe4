/** Where the SPA may send the browser: away (back into the OAuth flow), or to a path it was given. */
import { isWithin, patterns } from "./routes";

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
  // "/.//host" resolves to the path "//host", which a browser would read as another origin.
  const path = `${url.pathname}${url.search}${url.hash}`;
  return path.startsWith("//") ? null : path;
}

/** Paths the SPA renders itself; any other same-origin path is loaded from the server. */
export function isSpaPath(path: string): boolean {
  return isWithin(path, patterns.console) || isWithin(path, patterns.account) || /^\/(?:[?#]|$)/.test(path);
}
