/**
 * Authentication context class references (`acr`, RFC 9470 §3; OpenID Connect Core §2)
 * that Tollgate assigns to a user's authentication, weakest first.
 *
 * - `urn:tollgate:pwd`: one element, the password (knowledge).
 * - `urn:tollgate:sca`: PSD2 strong customer authentication, two independent elements of
 *   knowledge, possession and inherence (RTS Arts. 4, 6–8): the password and a TOTP code or a
 *   user-verified WebAuthn credential.
 */
export const ACR_PASSWORD = "urn:tollgate:pwd";
export const ACR_SCA = "urn:tollgate:sca";

/** Every `acr` value Tollgate assigns, weakest first (the metadata's `acr_values_supported`). */
export const ACR_VALUES = [ACR_PASSWORD, ACR_SCA] as const;

/**
 * Whether an authentication of level `actual` meets `required`: the same level or a
 * stronger one. An unknown value meets nothing and is met by nothing.
 */
export function satisfiesAcr(actual: string | null | undefined, required: string): boolean {
  const have = ACR_VALUES.indexOf(actual as (typeof ACR_VALUES)[number]);
  const need = ACR_VALUES.indexOf(required as (typeof ACR_VALUES)[number]);
  return have >= 0 && need >= 0 && have >= need;
}
