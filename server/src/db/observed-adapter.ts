/**
 * A Prisma driver adapter factory wrapped to (1) report writes that may make the catalog
 * cache or the token cache stale, so they can be emptied, and (2) on SQLite, keep Prisma's interactive transactions
 * and the direct statements of db/sql.ts from interleaving on their shared connection.
 */
import type { SqlDriverAdapter, SqlDriverAdapterFactory, SqlQuery, Transaction } from "@prisma/driver-adapter-utils";
import type { SqliteGate } from "./sql.js";

/**
 * Tables that neither cache holds and whose writes change no cached row: the catalog cache
 * holds clients and APIs, and cached token rows read only their own table and the user's.
 */
const OUTSIDE_THE_CACHES = [
  "AuthorizationCode",
  "AuditEvent",
  "Consent",
  "Psd2Consent",
  "Interaction",
  "Session",
  "UserFactor",
  "Scope",
  "GatewayTraffic",
  "PushedAuthorizationRequest",
  "UsedJti",
  "AuthorizationEvidence",
  "FederatedIdentity",
  "_prisma_migrations",
];

/** Tables whose rows the catalog cache never holds: writes to them leave it alone. */
const UNCACHED_TABLES = new Set([...OUTSIDE_THE_CACHES, "AccessToken", "User"]);

/** The table an INSERT, UPDATE or DELETE statement writes (Prisma quotes with ` on SQLite, " on PostgreSQL). */
const WRITE = /^\s*(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(?:[`"]\w+[`"]\.)?[`"](\w+)[`"]/i;

/** Statements that change no row. */
const READ_ONLY = /^\s*(?:SELECT|PRAGMA|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|SHOW|SET)\b/i;

/**
 * Tables whose writes leave cached token rows (db/token-cache.ts) as they are. A user's row
 * is read with the token (its username), and catalog rows cascade to tokens on delete.
 */
const TOKEN_NEUTRAL_TABLES = new Set(OUTSIDE_THE_CACHES);

/** True when `sql` may write a row of a table not in `spared`: any statement not known to spare them all. */
function writesOutside(spared: ReadonlySet<string>, sql: string): boolean {
  const match = WRITE.exec(sql);
  if (match) return !spared.has(match[1]!);
  return !READ_ONLY.test(sql);
}

/** True when `sql` may change a cached catalog row: any statement not known to spare the catalog. */
export function writesCatalog(sql: string): boolean {
  return writesOutside(UNCACHED_TABLES, sql);
}

/** True when `sql` may change a cached token row. A new token row (INSERT) changes none. */
export function writesTokens(sql: string): boolean {
  return !/^\s*INSERT\s+INTO\s+(?:[`"]\w+[`"]\.)?[`"]AccessToken[`"]/i.test(sql) && writesOutside(TOKEN_NEUTRAL_TABLES, sql);
}

export interface Observers {
  /** Called after a statement that may change catalog rows, and again when its transaction commits. */
  onCatalogWrite(): void;
  /** Likewise for token rows. */
  onTokenWrite(): void;
  /** SQLite only: serializes transactions with db/sql.ts. */
  gate?: SqliteGate;
  /** Receives each connected adapter (db/database.ts takes the SQLite connection from it). */
  onConnect?(adapter: SqlDriverAdapter): void;
}

/** Wraps `factory` as described in this module's header. */
export function observedAdapter(factory: SqlDriverAdapterFactory, o: Observers): SqlDriverAdapterFactory {
  const watch = async <T>(query: SqlQuery, run: (q: SqlQuery) => Promise<T>, written: Pick<Observers, "onCatalogWrite" | "onTokenWrite">): Promise<T> => {
    const result = await run(query);
    if (writesCatalog(query.sql)) written.onCatalogWrite();
    if (writesTokens(query.sql)) written.onTokenWrite();
    return result;
  };
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    async connect() {
      const adapter = await factory.connect();
      o.onConnect?.(adapter);
      return {
        provider: adapter.provider,
        adapterName: adapter.adapterName,
        async queryRaw(query) {
          while (o.gate?.busy) await o.gate.closed(); // then the query starts synchronously
          return watch(query, (q) => adapter.queryRaw(q), o);
        },
        async executeRaw(query) {
          while (o.gate?.busy) await o.gate.closed(); // then the query starts synchronously
          return watch(query, (q) => adapter.executeRaw(q), o);
        },
        async executeScript(script) {
          while (o.gate?.busy) await o.gate.closed(); // then the query starts synchronously
          await adapter.executeScript(script);
          o.onCatalogWrite();
          o.onTokenWrite();
        },
        async startTransaction(isolationLevel): Promise<Transaction> {
          const release = (await o.gate?.enter()) ?? (() => {});
          let tx: Transaction;
          try {
            tx = await adapter.startTransaction(isolationLevel);
          } catch (err) {
            release();
            throw err;
          }
          let wroteCatalog = false;
          let wroteTokens = false;
          const written = {
            onCatalogWrite() {
              wroteCatalog = true;
              o.onCatalogWrite();
            },
            onTokenWrite() {
              wroteTokens = true;
              o.onTokenWrite();
            },
          };
          return {
            provider: tx.provider,
            adapterName: tx.adapterName,
            options: tx.options,
            queryRaw: (query) => watch(query, (q) => tx.queryRaw(q), written),
            executeRaw: (query) => watch(query, (q) => tx.executeRaw(q), written),
            async commit() {
              try {
                await tx.commit();
              } finally {
                release();
                if (wroteCatalog) o.onCatalogWrite();
                if (wroteTokens) o.onTokenWrite();
              }
            },
            async rollback() {
              try {
                await tx.rollback();
              } finally {
                release();
              }
            },
          };
        },
        ...(adapter.getConnectionInfo ? { getConnectionInfo: () => adapter.getConnectionInfo!() } : {}),
        dispose: () => adapter.dispose(),
      };
    },
  };
}
