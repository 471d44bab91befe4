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

/** What a summary joins: the PSU's username (the app is named apart, {@link appNames}: no relation, it may be deleted). */
const NAMED = { user: { select: { username: true } } } as const;

type NamedRow = Row & { user: { username: string } | null };

/** The ids of the apps (at most 500) whose name or one of whose consumer keys contains the searched text. */
async function appsNamed(prisma: Executor["prisma"], search: ReturnType<typeof substringSearch>): Promise<string[]> {
  const apps = await prisma.app.findMany({
    where: { OR: [{ name: search.where }, { credentials: { some: { consumerKey: search.where } } }] },
    select: { id: true, name: true, credentials: { select: { consumerKey: true } } },
    take: 500,
  });
  return apps.filter((a) => search.matches(a.name) || a.credentials.some((c) => search.matches(c.consumerKey))).map((a) => a.id);
}

/** How a summary names an app: its name, organization and first consumer key. */
type AppNaming = Pick<Psd2ConsentSummary, "appName" | "organizationName" | "clientId">;

/**
 * The names of the apps `ids`, by id. An app that was deleted (admin.deleteApp) is named as
 * its deletion's audit event recorded it (use-cases/apps.ts deleteApp: `details.app`), its
 * name suffixed " (deleted)"; one the log no longer holds is "deleted app".
 */
async function appNames(prisma: Executor["prisma"], ids: string[]): Promise<Map<string, AppNaming>> {
  const apps = await prisma.app.findMany({
    where: { id: { in: ids } },
    select: { id: true, name: true, developer: { select: { organization: { select: { displayName: true, name: true } } } }, credentials: { select: { consumerKey: true }, orderBy: { createdAt: "asc" }, take: 1 } },
  });
  const names = new Map<string, AppNaming>(
    apps.map((a) => [a.id, { appName: a.name, organizationName: a.developer.organization.displayName || a.developer.organization.name, clientId: a.credentials[0]?.consumerKey ?? "" }]),
  );
  const deleted = ids.filter((id) => !names.has(id));
  if (deleted.length === 0) return names;
  for (const event of await prisma.auditEvent.findMany({ where: { type: "admin.deleteApp", subject: { in: deleted } }, select: { subject: true, details: true } })) {
    const app = (JSON.parse(event.details) as { app?: { name?: string; organizationName?: string; consumerKeys?: string[] } }).app;
    names.set(event.subject, { appName: `${app?.name ?? "app"} (deleted)`, organizationName: app?.organizationName ?? "", clientId: app?.consumerKeys?.[0] ?? "" });
  }
  for (const id of deleted) if (!names.has(id)) names.set(id, { appName: "deleted app", organizationName: "", clientId: "" });
  return names;
}

/** The summaries of `rows`, their apps named. */
async function summarize(prisma: Executor["prisma"], rows: NamedRow[]): Promise<Psd2ConsentSummary[]> {
  const names = await appNames(prisma, [...new Set(rows.map((r) => r.appId))]);
  return rows.map(({ user, ...rest }) => ({ ...parse(rest), ...names.get(rest.appId)!, username: user?.username ?? null }));
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
      const credential = f.clientId ? await prisma.credential.findUnique({ where: { consumerKey: f.clientId }, select: { appId: true } }) : undefined;
      if (credential === null) return [];
      const search = f.search ? substringSearch(provider, f.search) : undefined;
      // A PSD2 consent has no relation to its app (which may be deleted): the apps the text names come first.
      const namedApps = search ? await appsNamed(prisma, search) : [];
      const rows = await prisma.psd2Consent.findMany({
        where: {
          ...(f.userId ? { userId: f.userId } : {}),
          ...(f.status ? { status: f.status } : {}),
          ...(credential ? { appId: credential.appId } : {}),
          ...(search ? { OR: [{ id: f.search! }, { user: { username: search.where } }, { appId: { in: namedApps } }] } : {}),
        },
        include: NAMED,
        orderBy: { createdAt: "desc" },
        take: 500,
      });
      // LIKE's wildcards only narrow the rows: the literal text is checked again (db/paginate.ts substringSearch).
      const kept = search ? rows.filter((r) => r.id === f.search || search.matches(r.user?.username ?? "") || namedApps.includes(r.appId)) : rows;
      return summarize(prisma, kept);
    },
    async deleteUnanswered(before, limit) {
      const ids = (await prisma.psd2Consent.findMany({ where: { status: "received", createdAt: { lt: before } }, select: { id: true }, take: limit })).map((c) => c.id);
      return ids.length === 0 ? 0 : (await prisma.psd2Consent.deleteMany({ where: { id: { in: ids }, status: "received" } })).count;
    },
    async summary(id) {
      const row = await prisma.psd2Consent.findUnique({ where: { id }, include: NAMED });
      return row ? (await summarize(prisma, [row]))[0] : undefined;
    },
  };
}
