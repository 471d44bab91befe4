/**
 * PSD2 consents: admins list, read with their evidence, and revoke any (`psd2Consents`,
 * `psd2Consent`, `revokePsd2Consent`); a signed-in PSU lists and revokes their own
 * (`myPsd2Consents`, `revokeMyPsd2Consent`).
 */
import { requireUser } from "../context.js";
import type { MyPsd2ConsentResolvers, Psd2ConsentResolvers, Resolvers } from "../generated/resolvers.js";
import { psuRevocation, revokePsd2Consent } from "../use-cases/psd2-consents.js";
import { statusAt } from "../../consents/lifecycle.js";
import type { Psd2ConsentStatus } from "../../stores/psd2-consents.js";
import { adminEvent } from "./audit.js";
import { checkOptional, v } from "../validation.js";

const STORED: ReadonlySet<string> = new Set<Psd2ConsentStatus>([
  "received",
  "valid",
  "rejected",
  "revokedByPsu",
  "terminatedByTpp",
  "consumed",
  "paymentPending",
  "paymentRejected",
  "outcomeUnknown",
]);

/** The derived fields of a consent, the same for an admin (Psd2Consent) and its PSU (MyPsd2Consent). */
const consentFields: Psd2ConsentResolvers & MyPsd2ConsentResolvers = {
  status: (c) => statusAt(c, new Date()),
  authorizationDetails: (c) => c.approvedDetails ?? c.requestedDetails,
  validUntil: (c) => c.validUntil?.toISOString().slice(0, 10) ?? null,
};

/** Resolvers of the PSD2 consents domain. */
export const psd2ConsentResolvers: Resolvers = {
  Query: {
    // `expired` is derived from valid consents (consents/lifecycle.ts); an unknown status matches nothing.
    psd2Consents: async (_p, a, { db }) => {
      const status = a.status === "expired" ? "valid" : a.status;
      if (status && !STORED.has(status)) return [];
      const search = checkOptional(v.search, a.search, "search");
      const consents = await db.psd2Consents.list({ clientId: a.clientId, status: status as Psd2ConsentStatus | null | undefined, search });
      return a.status === "valid" || a.status === "expired" ? consents.filter((c) => statusAt(c, new Date()) === a.status) : consents;
    },
    psd2Consent: async (_p, a, { db }) => (await db.psd2Consents.summary(a.id)) ?? null,
    myPsd2Consents: (_p, _a, ctx) => ctx.db.psd2Consents.list({ userId: requireUser(ctx).userId }),
  },
  Mutation: {
    revokePsd2Consent: (_p, args, ctx, info) => revokePsd2Consent(ctx.db, { id: args.id, audit: adminEvent(args, ctx, info) }),
    revokeMyPsd2Consent: (_p, args, ctx) => {
      const { userId } = requireUser(ctx);
      return revokePsd2Consent(ctx.db, { id: args.id, userId, audit: psuRevocation(userId, ctx.request) });
    },
  },
  Psd2Consent: { ...consentFields, evidence: (c, _a, { db }) => db.evidence.ofPsd2Consent(c.id) },
  MyPsd2Consent: consentFields,
};
