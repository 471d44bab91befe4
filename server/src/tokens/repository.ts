/**
 * Issued access tokens (and refresh tokens of user grants). Only SHA-256 hashes of the
 * token values are stored.
 */
import type { Db, Tx } from "../db/client.js";
import { joinList, splitList } from "../oauth/scopes.js";

/** What is stored for a newly issued access token. */
export interface NewAccessToken {
  tokenHash: string;
  appId: string;
  credentialId: string;
  userId?: string;
  grantType: string;
  scopes: string[];
  apiProducts: string[];
  issuedAt: Date;
  expiresAt: Date;
  refresh?: { tokenHash: string; issuedAt: Date; expiresAt: Date };
  refreshCount?: number;
  familyId?: string;
}

/**
 * What a token still grants: its recorded products that are still approved on its
 * credential, and its recorded scopes that one of those products still offers. Revoking
 * a product on a credential thus takes effect on tokens already issued.
 */
function liveGrant(t: { apiProducts: string; scope: string }, approved: { apiProduct: { name: string; scopes: string } }[]) {
  const recorded = new Set(splitList(t.apiProducts));
  const products = approved.map((p) => p.apiProduct).filter((p) => recorded.has(p.name));
  const offered = new Set(products.flatMap((p) => splitList(p.scopes)));
  return { apiProducts: products.map((p) => p.name), scopes: splitList(t.scope).filter((s) => offered.has(s)) };
}

/** The app and credential are approved and the credential is not past its expiry (rotation grace). */
function clientActive(app: { status: string }, credential: { status: string; expiresAt: Date | null }, now: Date): boolean {
  return app.status === "approved" && credential.status === "approved" && (credential.expiresAt === null || credential.expiresAt > now);
}

/** Prisma selection of a credential's approved products, for {@link liveGrant}. */
const APPROVED_PRODUCTS = { where: { status: "approved" }, select: { apiProduct: { select: { name: true, scopes: true } } } } as const;

/** Stores a new access token row. @returns the row id. */
export async function insertAccessToken(db: Tx, t: NewAccessToken): Promise<string> {
  const row = await db.accessToken.create({
    data: {
      tokenHash: t.tokenHash,
      appId: t.appId,
      credentialId: t.credentialId,
      userId: t.userId ?? null,
      grantType: t.grantType,
      scope: joinList(t.scopes),
      apiProducts: joinList(t.apiProducts),
      issuedAt: t.issuedAt,
      expiresAt: t.expiresAt,
      refreshTokenHash: t.refresh?.tokenHash ?? null,
      refreshTokenIssuedAt: t.refresh?.issuedAt ?? null,
      refreshTokenExpiresAt: t.refresh?.expiresAt ?? null,
      refreshTokenStatus: t.refresh ? "approved" : null,
      refreshCount: t.refreshCount ?? 0,
      familyId: t.familyId ?? null,
    },
    select: { id: true },
  });
  return row.id;
}

/** An access token as the gateway checks it, with the live status of its app and credential. */
export interface PresentedToken {
  /** Approved, not expired, and its app and credential still approved and unexpired. */
  active: boolean;
  scopes: string[];
  /** Products recorded on the token that are still approved on its credential. */
  apiProducts: string[];
  clientId: string;
  appName: string;
  userId: string | null;
}

/**
 * Loads the token whose SHA-256 is `tokenHash`.
 * @param now - current time, for the credential's expiry.
 * @returns undefined when no token has this hash.
 */
export async function findTokenByHash(db: Db, tokenHash: string, now: Date): Promise<PresentedToken | undefined> {
  const t = await db.accessToken.findUnique({
    where: { tokenHash },
    include: {
      app: { select: { name: true, status: true } },
      credential: {
        select: {
          consumerKey: true,
          status: true,
          expiresAt: true,
          products: APPROVED_PRODUCTS,
        },
      },
    },
  });
  if (!t) return undefined;
  return {
    active: t.status === "approved" && t.expiresAt > now && clientActive(t.app, t.credential, now),
    ...liveGrant(t, t.credential.products),
    clientId: t.credential.consumerKey,
    appName: t.app.name,
    userId: t.userId,
  };
}

/** A refresh token's row, as the refresh grant needs it. */
export interface RefreshTokenRecord {
  id: string;
  appId: string;
  userId: string | null;
  scopes: string[];
  refreshTokenStatus: string | null;
  refreshTokenExpiresAt: Date | null;
  refreshCount: number;
  familyId: string | null;
}

/** @returns the token row whose refresh token hashes to `refreshTokenHash`, or undefined. */
export async function findByRefreshTokenHash(db: Db, refreshTokenHash: string): Promise<RefreshTokenRecord | undefined> {
  const t = await db.accessToken.findUnique({
    where: { refreshTokenHash },
    select: { id: true, appId: true, userId: true, scope: true, refreshTokenStatus: true, refreshTokenExpiresAt: true, refreshCount: true, familyId: true },
  });
  if (!t) return undefined;
  const { scope, ...rest } = t;
  return { ...rest, scopes: splitList(scope) };
}

/**
 * Revokes a refresh token on rotation, only if it is still approved (RFC 9700 §4.14.2).
 * @returns false when it was already revoked (a concurrent or repeated use).
 */
export async function revokeRefreshToken(db: Tx, id: string): Promise<boolean> {
  const { count } = await db.accessToken.updateMany({
    where: { id, refreshTokenStatus: "approved" },
    data: { refreshTokenStatus: "revoked" },
  });
  return count === 1;
}

/** Revokes every access and refresh token of a rotation family. @returns how many rows changed. */
export async function revokeFamily(db: Db, familyId: string, now: Date): Promise<number> {
  const { count } = await db.accessToken.updateMany({
    where: { familyId, OR: [{ status: "approved" }, { refreshTokenStatus: "approved" }] },
    data: { status: "revoked", refreshTokenStatus: "revoked", revokedAt: now },
  });
  return count;
}

/** A token row found by the value of its access token or of its refresh token. */
export interface StoredToken {
  /** Which of the row's two tokens the value is. */
  type: "access_token" | "refresh_token";
  id: string;
  appId: string;
  clientId: string;
  userId: string | null;
  username: string | null;
  familyId: string | null;
  scopes: string[];
  apiProducts: string[];
  /** Issue and expiry of the presented token (access or refresh). */
  issuedAt: Date;
  expiresAt: Date;
  /** The presented token is approved and not expired, and its app and credential still approved and unexpired. */
  active: boolean;
}

/**
 * Finds the token whose SHA-256 is `tokenHash`, trying the hinted type first (RFC 7009
 * §2.1, RFC 7662 §2.1: the hint only orders the search).
 * @param now - for the credential's expiry.
 */
export async function findTokenByAnyHash(db: Db, tokenHash: string, hint: string | undefined, now: Date): Promise<StoredToken | undefined> {
  const order: StoredToken["type"][] = hint === "refresh_token" ? ["refresh_token", "access_token"] : ["access_token", "refresh_token"];
  for (const type of order) {
    const t = await db.accessToken.findUnique({
      where: type === "access_token" ? { tokenHash } : { refreshTokenHash: tokenHash },
      include: {
        app: { select: { status: true } },
        credential: {
          select: {
            consumerKey: true,
            status: true,
            expiresAt: true,
            products: APPROVED_PRODUCTS,
          },
        },
        user: { select: { username: true } },
      },
    });
    if (!t) continue;
    const access = type === "access_token";
    const expiresAt = access ? t.expiresAt : t.refreshTokenExpiresAt!;
    return {
      type,
      id: t.id,
      appId: t.appId,
      clientId: t.credential.consumerKey,
      userId: t.userId,
      username: t.user?.username ?? null,
      familyId: t.familyId,
      ...liveGrant(t, t.credential.products),
      issuedAt: access ? t.issuedAt : t.refreshTokenIssuedAt!,
      expiresAt,
      active: (access ? t.status : t.refreshTokenStatus) === "approved" && expiresAt > now && clientActive(t.app, t.credential, now),
    };
  }
  return undefined;
}

/** Revokes one access token (not its refresh token). */
export async function revokeAccessToken(db: Db, id: string, now: Date): Promise<void> {
  await db.accessToken.updateMany({ where: { id, status: "approved" }, data: { status: "revoked", revokedAt: now } });
}

/**
 * Deletes up to `limit` token rows whose access token and refresh token (if any) both
 * expired before `before`. @returns how many were deleted.
 */
export async function deleteExpiredTokens(db: Db, before: Date, limit: number): Promise<number> {
  const ids = (
    await db.accessToken.findMany({
      where: { expiresAt: { lt: before }, OR: [{ refreshTokenExpiresAt: null }, { refreshTokenExpiresAt: { lt: before } }] },
      select: { id: true },
      take: limit,
    })
  ).map((t) => t.id);
  return ids.length === 0 ? 0 : (await db.accessToken.deleteMany({ where: { id: { in: ids } } })).count;
}
