/**
 * The authorization evidence store (stores/evidence.ts), on Prisma.
 */
import type { EvidenceStore } from "../../stores/evidence.js";
import type { Psd2ConsentStatus } from "../../stores/psd2-consents.js";
import type { Executor } from "./executor.js";

/** The statuses a PSD2 consent never leaves (consents/lifecycle.ts): it ended when it entered one. */
const FINAL_STATUSES: Psd2ConsentStatus[] = ["rejected", "revokedByPsu", "terminatedByTpp", "consumed", "paymentRejected"];

/** The authorization evidence store over `x`. */
export function evidenceStore(x: Executor): EvidenceStore {
  const { prisma } = x;
  return {
    async insert(evidence) {
      const { userId, appId, psd2ConsentId } = evidence;
      const consent = psd2ConsentId === null ? await prisma.consent.findFirst({ where: { userId, appId, revokedAt: null }, select: { id: true } }) : null;
      await prisma.authorizationEvidence.create({ data: { ...evidence, consentId: consent?.id ?? null } });
    },
    ofPsd2Consent: (psd2ConsentId) => prisma.authorizationEvidence.findMany({ where: { psd2ConsentId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
    ofConsent: (consentId) => prisma.authorizationEvidence.findMany({ where: { consentId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),
    async deleteEnded(before, limit) {
      const ids = (
        await prisma.authorizationEvidence.findMany({
          where: {
            createdAt: { lt: before },
            OR: [
              { psd2ConsentId: null, consentId: null },
              { psd2Consent: { is: { status: { in: FINAL_STATUSES }, statusChangedAt: { lt: before } } } },
              { psd2Consent: { is: { status: "valid", validUntil: { lt: before } } } },
              { consent: { is: { revokedAt: { lt: before } } } },
            ],
          },
          select: { id: true },
          take: limit,
        })
      ).map((e) => e.id);
      return ids.length === 0 ? 0 : (await prisma.authorizationEvidence.deleteMany({ where: { id: { in: ids } } })).count;
    },
  };
}
