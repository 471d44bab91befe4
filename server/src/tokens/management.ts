/**
 * Issued tokens as the admin API lists and revokes them (never the token values: only
 * hashes are stored).
 */
import type { Db, Tx } from "../db/client.js";
import { paginate } from "../db/paginate.js";

export interface TokenFilter {
  appId?: string | null;
  userId?: string | null;
  status?: string | null;
  /** Only tokens still usable: approved and not expired. */
  liveOnly?: boolean | null;
}

/** Tokens newest first. @param now - for `liveOnly`. */
export async function listTokens(db: Db, f: TokenFilter, now: Date, first: number, after?: string | null) {
  const where = {
    AND: [
      f.appId ? { appId: f.appId } : {},
      f.userId ? { userId: f.userId } : {},
      f.status ? { status: f.status } : {},
      f.liveOnly ? { status: "approved", expiresAt: { gt: now } } : {},
    ],
  };
  return paginate((args) => db.accessToken.findMany({ ...args, where }), first, after, "desc");
}

export async function findToken(db: Db, id: string) {
  return db.accessToken.findUnique({ where: { id } });
}

/** Revokes one access token and its refresh token, if it has one. @throws Prisma P2025 when unknown. */
export async function revokeTokenById(db: Db, id: string, now: Date) {
  const t = await db.accessToken.findUniqueOrThrow({ where: { id } });
  return db.accessToken.update({
    where: { id },
    data: { status: "revoked", revokedAt: now, ...(t.refreshTokenStatus ? { refreshTokenStatus: "revoked" } : {}) },
  });
}

/** Whose tokens: an app's, a user's, a credential's, or a combination (all must match). */
export interface TokenOwner {
  appId?: string;
  userId?: string;
  credentialId?: string;
}

/**
 * Revokes every live access and refresh token of an owner, inside the caller's transaction.
 * @returns how many access tokens were revoked.
 */
export async function revokeTokensOfOwner(tx: Tx, owner: TokenOwner, now: Date): Promise<number> {
  const base = {
    ...(owner.appId ? { appId: owner.appId } : {}),
    ...(owner.userId ? { userId: owner.userId } : {}),
    ...(owner.credentialId ? { credentialId: owner.credentialId } : {}),
  };
  const access = await tx.accessToken.updateMany({ where: { ...base, status: "approved" }, data: { status: "revoked", revokedAt: now } });
  await tx.accessToken.updateMany({ where: { ...base, refreshTokenStatus: "approved" }, data: { refreshTokenStatus: "revoked" } });
  return access.count;
}

/** {@link revokeTokensOfOwner} in its own transaction. */
export async function revokeTokensOf(db: Db, owner: TokenOwner, now: Date): Promise<number> {
  return db.$transaction((tx) => revokeTokensOfOwner(tx, owner, now));
}

/**
 * Tokens issued per app in each hourly bucket.
 * @param hours - bucket starts; each bucket is [start, start + 1 h).
 */
export async function countTokensIssuedPerHour(db: Db, hours: Date[]): Promise<{ hour: Date; appId: string; count: number }[]> {
  const perHour = await Promise.all(
    hours.map(async (hour) => {
      const groups = await db.accessToken.groupBy({
        by: ["appId"],
        where: { issuedAt: { gte: hour, lt: new Date(hour.getTime() + 3_600_000) } },
        _count: { _all: true },
      });
      return groups.map((g) => ({ hour, appId: g.appId, count: g._count._all }));
    }),
  );
  return perHour.flat();
}
