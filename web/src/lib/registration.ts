/**
 * The pure parts of a dynamically registered app's panel (pages/admin/AppRegistration.tsx): a
 * TPP's PSD2 roles, its national competent authority and its software statement's expiry, in words.
 */
import { PSD2_ROLES, type Psd2Role } from "../../../server/src/certificates/roles";

/** What each PSD2 role (ETSI TS 119 495 §5.2.2) lets a provider do, in the console's words. */
const ROLE_WORDS: Readonly<Record<Psd2Role, string>> = {
  PSP_AI: "Account information",
  PSP_PI: "Payment initiation",
  PSP_IC: "Funds confirmation",
  PSP_AS: "Account servicing",
};

const isRole = (role: string): role is Psd2Role => (PSD2_ROLES as readonly string[]).includes(role);

/** A PSD2 role in words with its ETSI name ("Account information (PSP_AI)"); a role the console does not know, as it is. */
export function roleText(role: string): string {
  return isRole(role) ? `${ROLE_WORDS[role]} (${role})` : role;
}

/** The national competent authority of a TPP's certificate: "BaFin (DE-BAFIN)", either part alone, or null when neither is known. */
export function ncaText(name: string | null, id: string | null): string | null {
  if (name && id) return `${name} (${id})`;
  return name || id || null;
}

/** The directory's organization: "Acme Fintech Ltd (id acme-fintech-demo)", either part alone, or null when neither is known. */
export function organizationText(name: string | null, id: string | null): string | null {
  if (name && id) return `${name} (id ${id})`;
  return name || (id ? `id ${id}` : null);
}

/** Whether a software statement's `exp` has passed at `now`; a statement without one never expires. */
export function statementExpired(expiresAt: string | null, now: Date): boolean {
  return expiresAt !== null && new Date(expiresAt).getTime() <= now.getTime();
}
