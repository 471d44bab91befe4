/**
 * The PSD2 consent store (stores/psd2-consents.ts), on Prisma: consents are written a few
 * times in their life (created, answered, ended), never on a token's hot path.
 */
import type { PaymentSettlement, Psd2ConsentKind, Psd2ConsentOrigin, Psd2ConsentRecord, Psd2ConsentStatus, Psd2ConsentStore, Psd2ConsentSummary } from "../../stores/psd2-consents.js";
import type { Executor } from "./executor.js";
import { substringSearch } from "../paginate.js";

type Row = Omit<Psd2ConsentRecord, "kind" | "origin" | "status"> & { kind: string; origin: string; status: string };

function parse(row: Row): Psd2ConsentRecord {
  return { ...row, kind: row.kind as Psd2ConsentKind, origin: row.origin as Psd2ConsentOrigin, status: row.status as Psd2ConsentStatus };
}

/** What a summary joins: the app's name, organization and consumer key, and the PSU's username. */
const NAMED = {
  app: { select: { name: true, developer: { select: { organization: { select: { displayName: true, name: true } } } }, credentials: { select: { consumerKey: true }, orderBy: { createdAt: "asc" }, take: 1 } } },
  user: { select: { username: true } },
} as const;

type NamedRow = Row & {
  app: { name: string; developer: { organization: { displayName: string; name: string } }; credentials: { consumerKey: string }[] };
  user: { username: string } | null;
};

function summarize(row: NamedRow): Psd2ConsentSummary {
  const { app, user, ...rest } = row;
  return {
    ...parse(rest),
    clientId: app.credentials[0]?.consumerKey ?? "",
    appName: app.name,
    organizationName: app.developer.organization.displayName || app.developer.organization.name,
    username: user?.username ?? null,
  };
}

/** The columns a settlement writes (the status and its time are the caller's). */
function settlementData(to: PaymentSettlement) {
  switch (to.status) {
    case "valid":
      return { paymentRequestId: null, paymentBodyHash: null, paymentAttempts: 0 };
    case "outcomeUnknown":
      return { paymentAttempts: to.attempts };
    default:
      return { transactionStatus: to.transactionStatus, statusReason: to.reason };
  }
}

/** The PSD2 consent store over `x`. */
export function psd2ConsentStore(x: Executor): Psd2ConsentStore {
  const { prisma, provider } = x;
  return {
    async create(c) {
      return parse(await prisma.psd2Consent.create({ data: c }));
    },
    async find(id) {
      const row = await prisma.psd2Consent.findUnique({ where: { id } });
      return row ? parse(row) : undefined;
    },
    async answer(id, answer, now) {
      const data =
        "rejected" in answer
          ? { status: "rejected", userId: answer.userId, statusChangedAt: now }
          : { status: "valid", userId: answer.userId, approvedDetails: answer.approvedDetails, statusChangedAt: now, ...(answer.validUntil ? { validUntil: answer.validUntil } : {}) };
      return (await prisma.psd2Consent.updateMany({ where: { id, status: "received" }, data })).count === 1;
    },
    async transition(id, from, to, now) {
      return (await prisma.psd2Consent.updateMany({ where: { id, status: { in: [...from] } }, data: { status: to, statusChangedAt: now } })).count === 1;
    },
    async reservePayment(id, attempt, maxAttempts, now) {
      const first = await prisma.psd2Consent.updateMany({
        where: { id, status: "valid", validUntil: { gt: now } },
        data: { status: "paymentPending", statusChangedAt: now, paymentRequestId: attempt.requestId, paymentBodyHash: attempt.bodyHash, paymentAttempts: 1 },
      });
      if (first.count === 1) return 1;
      if (attempt.requestId === null) return undefined;
      const retry = { id, status: "outcomeUnknown", validUntil: { gt: now }, paymentRequestId: attempt.requestId, paymentBodyHash: attempt.bodyHash, paymentAttempts: { lt: maxAttempts } };
      // Read first, then moved only from exactly what was read: the attempt's number is the one this update made.
      const unknown = await prisma.psd2Consent.findFirst({ where: retry, select: { paymentAttempts: true } });
      if (!unknown) return undefined;
      const moved = await prisma.psd2Consent.updateMany({
        where: { ...retry, paymentAttempts: unknown.paymentAttempts },
        data: { status: "paymentPending", statusChangedAt: now, paymentAttempts: unknown.paymentAttempts + 1 },
      });
      return moved.count === 1 ? unknown.paymentAttempts + 1 : undefined;
    },
    async settlePayment(id, attempt, to, now) {
      const data = { status: to.status, statusChangedAt: now, ...settlementData(to) };
      return (await prisma.psd2Consent.updateMany({ where: { id, status: "paymentPending", paymentAttempts: attempt }, data })).count === 1;
    },
    async list(f) {
      const search = f.search ? substringSearch(provider, f.search) : undefined;
      const rows = await prisma.psd2Consent.findMany({
        where: {
          ...(f.userId ? { userId: f.userId } : {}),
          ...(f.status ? { status: f.status } : {}),
          ...(f.clientId ? { app: { credentials: { some: { consumerKey: f.clientId } } } } : {}),
          ...(search
            ? { OR: [{ id: f.search! }, { user: { username: search.where } }, { app: { name: search.where } }, { app: { credentials: { some: { consumerKey: search.where } } } }] }
            : {}),
        },
        include: { ...NAMED, app: { select: { ...NAMED.app.select, credentials: { select: { consumerKey: true }, orderBy: { createdAt: "asc" as const } } } } },
        orderBy: { createdAt: "desc" },
        take: 500,
      });
      // LIKE's wildcards only narrow the rows: the literal text is checked again (db/paginate.ts substringSearch).
      const kept = search
        ? rows.filter((r) => r.id === f.search || search.matches(r.user?.username ?? "") || search.matches(r.app.name) || r.app.credentials.some((c) => search.matches(c.consumerKey)))
        : rows;
      return kept.map(summarize);
    },
    async deleteUnanswered(before, limit) {
      const ids = (await prisma.psd2Consent.findMany({ where: { status: "received", createdAt: { lt: before } }, select: { id: true }, take: limit })).map((c) => c.id);
      return ids.length === 0 ? 0 : (await prisma.psd2Consent.deleteMany({ where: { id: { in: ids }, status: "received" } })).count;
    },
    async summary(id) {
      const row = await prisma.psd2Consent.findUnique({ where: { id }, include: NAMED });
      return row ? summarize(row) : undefined;
    },
  };
}
