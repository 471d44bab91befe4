/**
 * PSD2 roles of a payment service provider (ETSI TS 119 495 §5.2.2, from PSD2 Art. 4): the ones a
 * QWAC's PSD2 QCStatement lists (eidas.ts), and which API products each lets a TPP be granted.
 * A TPP may hold only the products of its roles: an AISP (PSP_AI) account information, a PISP
 * (PSP_PI) payment initiation, a card-based payment instrument issuer (PSP_IC) funds confirmation
 * (PSD2 Art. 65–67, RTS Art. 34: the bank identifies the TPP and its roles by its certificate).
 */

/** The roles, in the order of ETSI TS 119 495 §5.2.2. */
export const PSD2_ROLES = ["PSP_AS", "PSP_PI", "PSP_AI", "PSP_IC"] as const;

/** A PSD2 role: account servicing (the bank itself), payment initiation, account information, card-based payment instrument issuing. */
export type Psd2Role = (typeof PSD2_ROLES)[number];

/** id-psd2-role (ETSI TS 119 495 Annex A): `{ itu-t(0) identified-organization(4) etsi(0) psd2(19495) id-roles(1) }`. */
export const PSD2_ROLE_ARC = "0.4.0.19495.1";

/** The OID of each role (ETSI TS 119 495 §5.2.2, Annex A: id-psd2-role-psp-as … -psp-ic). */
export const PSD2_ROLE_OIDS: Readonly<Record<Psd2Role, string>> = {
  PSP_AS: `${PSD2_ROLE_ARC}.1`,
  PSP_PI: `${PSD2_ROLE_ARC}.2`,
  PSP_AI: `${PSD2_ROLE_ARC}.3`,
  PSP_IC: `${PSD2_ROLE_ARC}.4`,
};

/** The role of `oid`, or undefined for an OID that is not one of the four. */
export function roleOfOid(oid: string): Psd2Role | undefined {
  return PSD2_ROLES.find((role) => PSD2_ROLE_OIDS[role] === oid);
}

/** Which API products (by name) each role allows. A role left out allows none. */
export type RoleProductMapping = Readonly<Partial<Record<Psd2Role, readonly string[]>>>;

/**
 * The default mapping, over the demo's products (server/src/demo/seed.ts): account information →
 * PSD2-AISP-v1, payment initiation → PSD2-PISP-v1, funds confirmation → PSD2-PIISP-v1. PSP_AS
 * (a bank acting as ASPSP) gets none: it is not a TPP of this bank.
 */
export const DEFAULT_ROLE_PRODUCTS: RoleProductMapping = {
  PSP_AI: ["PSD2-AISP-v1"],
  PSP_PI: ["PSD2-PISP-v1"],
  PSP_IC: ["PSD2-PIISP-v1"],
};

/** The API product names `roles` allow under `mapping`, each once, in the order the mapping lists them by role. */
export function allowedProducts(roles: readonly Psd2Role[], mapping: RoleProductMapping = DEFAULT_ROLE_PRODUCTS): string[] {
  const allowed = new Set<string>();
  for (const role of PSD2_ROLES) {
    if (!roles.includes(role)) continue;
    for (const product of mapping[role] ?? []) allowed.add(product);
  }
  return [...allowed];
}

/** The products of `requested` that `roles` do not allow under `mapping` (empty: all allowed), in the order requested. */
export function productsBeyondRoles(requested: readonly string[], roles: readonly Psd2Role[], mapping: RoleProductMapping = DEFAULT_ROLE_PRODUCTS): string[] {
  const allowed = new Set(allowedProducts(roles, mapping));
  return requested.filter((product) => !allowed.has(product));
}

/**
 * A mapping from configuration (e.g. parsed JSON): an object whose keys are role names and whose
 * values are arrays of product names (non-empty strings).
 *
 * @throws TypeError naming the first problem: not an object, an unknown role, a value that is not
 *   an array of non-empty strings.
 */
export function parseRoleProductMapping(input: unknown): RoleProductMapping {
  if (typeof input !== "object" || input === null || Array.isArray(input)) throw new TypeError("the role → products mapping must be an object");
  const mapping: Partial<Record<Psd2Role, readonly string[]>> = {};
  for (const [key, value] of Object.entries(input)) {
    const role = PSD2_ROLES.find((r) => r === key);
    if (!role) throw new TypeError(`unknown PSD2 role '${key}' (expected one of ${PSD2_ROLES.join(", ")})`);
    if (!Array.isArray(value) || !value.every((v): v is string => typeof v === "string" && v.length > 0)) {
      throw new TypeError(`the products of ${role} must be an array of product names`);
    }
    mapping[role] = [...new Set(value)];
  }
  return mapping;
}
