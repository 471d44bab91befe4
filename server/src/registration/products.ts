/**
 * The API products a registered client may be given, from its PSD2 roles (certificates/roles.ts):
 * the roles its software statement names, and, when the registration came with a client
 * certificate carrying a PSD2 QCStatement (a QWAC, certificates/eidas.ts), the roles the national
 * competent authority put in it.
 *
 * The two combine by intersection: a role counts only when both the directory and the certificate
 * grant it. The statement alone cannot widen what the TPP's regulator certified, and the
 * certificate alone cannot widen what the directory vouched for this software (a TPP licensed as
 * AISP and PISP may run software registered as AISP only). A certificate without a PSD2
 * QCStatement (no certificate, a self-signed one, a non-eIDAS transport certificate) constrains
 * nothing: the statement's roles apply. A bank that requires a QWAC refuses such a registration
 * before calling this.
 */
import { allowedProducts, PSD2_ROLES, type Psd2Role, type RoleProductMapping } from "../certificates/roles.js";

/** A registration's roles and the products they allow. */
export interface RegistrationGrant {
  /** The roles that count, in the order of ETSI TS 119 495 §5.2.2. */
  roles: Psd2Role[];
  /** The API product names those roles allow (certificates/roles.ts `allowedProducts`). */
  products: string[];
}

/**
 * The roles and API products of a registration (see the module's comment).
 * @param statementRoles - the verified software statement's roles.
 * @param certificateRoles - the roles of the client certificate's PSD2 QCStatement
 *   (certificates/eidas.ts `psd2QcStatement(certificate)?.roles`), or undefined when the request
 *   had no certificate or its certificate has no PSD2 QCStatement.
 * @param mapping - which products each role allows; certificates/roles.ts's default when left out.
 */
export function registrationGrant(statementRoles: readonly Psd2Role[], certificateRoles: readonly Psd2Role[] | undefined, mapping?: RoleProductMapping): RegistrationGrant {
  const roles = PSD2_ROLES.filter((role) => statementRoles.includes(role) && (certificateRoles === undefined || certificateRoles.includes(role)));
  return { roles, products: allowedProducts(roles, mapping) };
}
