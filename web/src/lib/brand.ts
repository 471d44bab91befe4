/**
 * The bank's brand on the end-user pages: its name and logo, which the server writes into
 * index.html from BRAND_NAME and BRAND_LOGO_URL (server/src/http/spa.ts) as JSON in
 * <meta name="tollgate-brand">.
 */

/** The bank's name and, when it has one, the address of its logo (an http(s) URL or a path on this origin). */
export interface Brand {
  name: string;
  logoUrl?: string;
}

const DEFAULT_BRAND: Brand = { name: "Tollgate" };

/** The brand in the meta's content, or Tollgate's when the content is missing or not a brand. */
export function parseBrand(content: string | null | undefined): Brand {
  let value: unknown;
  try {
    value = JSON.parse(content ?? "");
  } catch {
    return DEFAULT_BRAND;
  }
  if (typeof value !== "object" || value === null) return DEFAULT_BRAND;
  const { name, logoUrl } = value as Record<string, unknown>;
  if (typeof name !== "string" || name.trim() === "") return DEFAULT_BRAND;
  return typeof logoUrl === "string" ? { name, logoUrl } : { name };
}

/** This page's brand (Tollgate's outside a browser). */
export const brand: Brand = parseBrand(globalThis.document?.querySelector<HTMLMetaElement>('meta[name="tollgate-brand"]')?.content);
