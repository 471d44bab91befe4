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

/** The event the console's pages fire when an app leaves the queue of pending registrations. */
const PENDING_REGISTRATIONS_CHANGED = "tollgate:pending-registrations-changed";

/** Tells the navigation that the queue of pending registrations changed (an app approved or rejected), so its count is read again. */
export function pendingRegistrationsChanged(): void {
  window.dispatchEvent(new Event(PENDING_REGISTRATIONS_CHANGED));
}

/** Calls `listener` whenever {@link pendingRegistrationsChanged} is called. @returns what stops it. */
export function onPendingRegistrationsChanged(listener: () => void): () => void {
  window.addEventListener(PENDING_REGISTRATIONS_CHANGED, listener);
  return () => window.removeEventListener(PENDING_REGISTRATIONS_CHANGED, listener);
}

/** The count badge of a navigation link, shown and read after its label: "3 pending"; null for none (no badge). */
export function countBadge(count: number | undefined, what: string): { shown: string; read: string } | null {
  if (count === undefined || !Number.isFinite(count) || count <= 0) return null;
  return { shown: count > 99 ? "99+" : String(count), read: `${count} ${what}` };
}
