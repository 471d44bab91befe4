/**
 * What a store implementation runs on: the database's Prisma client (or one interactive
 * transaction of it), direct SQL on the same database (or the same transaction), and the
 * process's caches. Built by db/database.ts; only the stores in this folder see it.
 */
import type { PrismaClient, Prisma } from "../../generated/prisma/client.js";
import type { KeyEncryption } from "../../kernel/key-encryption.js";
import type { TokenRecord } from "../../stores/tokens.js";
import type { CatalogCache } from "../catalog-cache.js";
import type { Provider } from "../migrate.js";
import type { Sql } from "../sql.js";
import type { TokenCache } from "../token-cache.js";

export interface Executor {
  /** Prisma: the client, or inside a transaction its transaction client. */
  prisma: PrismaClient | Prisma.TransactionClient;
  /** Direct prepared SQL, on the same transaction as `prisma` inside one. */
  sql: Sql;
  provider: Provider;
  /** Catalog lookups cached in this process (emptied by every catalog write, db/observed-adapter.ts). */
  catalog: CatalogCache;
  /** Token rows cached in this process (on PostgreSQL only while Redis shares their evictions, db/token-cache.ts). */
  tokenCache: TokenCache<TokenRecord>;
  /** Seals and opens secrets kept at rest (TOTP keys); undefined for a tool that reads no such secret. */
  keyEncryption: KeyEncryption | undefined;
}
