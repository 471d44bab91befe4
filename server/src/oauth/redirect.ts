/**
 * Building the redirect back to the client's registered callback (RFC 6749 §4.1.2 and
 * §4.1.2.1, with `iss` per RFC 9207).
 */

/**
 * Appends parameters to a registered redirect URI, keeping its own query (RFC 6749 §3.1.2).
 * Undefined or null values are left out.
 */
export function redirectWith(redirectUri: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) url.searchParams.append(key, value);
  }
  return url.toString();
}
