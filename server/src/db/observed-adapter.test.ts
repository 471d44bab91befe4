/**
 * Unit tests of `writesCatalog` (db/observed-adapter.ts): which SQL statements empty the
 * catalog cache. Writes to catalog tables, in Prisma's SQLite (backtick-quoted, `main`
 * schema) and PostgreSQL (double-quoted, "public" schema) forms, do; writes to tables the
 * cache never holds, reads and pragmas do not; a write whose table is not recognised does
 * (the safe default). The SQLite statements are as Prisma 6 emits them.
 * Likewise `writesTokens`: which statements empty the token cache (db/token-cache.ts).
 */
import { describe, expect, it } from "vitest";
import { writesCatalog, writesTokens } from "./observed-adapter.js";

const CATALOG_TABLES = ["Organization", "Developer", "App", "CallbackUrl", "Credential", "CredentialProduct", "ApiProduct", "Api", "ApiProductApi"];
/** Tables whose writes change no row either cache holds. */
const NEUTRAL_TABLES = [
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
const UNCACHED_TABLES = ["AccessToken", "User", ...NEUTRAL_TABLES];

/** The three write forms, as Prisma writes them on SQLite and on PostgreSQL. */
const writes = (table: string): string[] => [
  `INSERT INTO \`main\`.\`${table}\` (\`id\`, \`name\`) VALUES (?,?) RETURNING \`id\` AS \`id\``,
  `UPDATE \`main\`.\`${table}\` SET \`status\` = ? WHERE (\`main\`.\`${table}\`.\`id\` = ? AND 1=1) RETURNING \`id\` AS \`id\``,
  `DELETE FROM \`main\`.\`${table}\` WHERE \`main\`.\`${table}\`.\`id\` = ?`,
  `INSERT INTO "public"."${table}" ("id","name") VALUES ($1,$2) RETURNING "public"."${table}"."id"`,
  `UPDATE "public"."${table}" SET "status" = $1 WHERE ("public"."${table}"."id" = $2 AND 1=1)`,
  `DELETE FROM "public"."${table}" WHERE "public"."${table}"."id" = $1`,
];

describe("writesCatalog", () => {
  describe.each(CATALOG_TABLES)("a write to catalog table %s", (table) => {
    it.each(writes(table))("empties the cache: %s", (sql) => {
      expect(writesCatalog(sql)).toBe(true);
    });
  });

  describe.each(UNCACHED_TABLES)("a write to uncached table %s", (table) => {
    it.each(writes(table))("leaves the cache alone: %s", (sql) => {
      expect(writesCatalog(sql)).toBe(false);
    });
  });

  it("recognises statements exactly as Prisma 6 emits them on SQLite", () => {
    expect(
      writesCatalog(
        "UPDATE `main`.`Credential` SET `status` = ?, `updatedAt` = ? WHERE (`main`.`Credential`.`id` = ? AND 1=1) RETURNING `id` AS `id`, `status` AS `status`",
      ),
    ).toBe(true);
    expect(writesCatalog("INSERT INTO `main`.`ApiProduct` (`id`, `name`, `scopes`, `createdAt`, `updatedAt`) VALUES (?,?,?,?,?) RETURNING `id` AS `id`")).toBe(true);
    expect(writesCatalog("DELETE FROM `main`.`App` WHERE `main`.`App`.`id` = ?")).toBe(true);
    // An upsert is an INSERT ... ON CONFLICT DO UPDATE: classified by its INSERT's table.
    expect(
      writesCatalog("INSERT INTO `main`.`Scope` (`name`, `description`) VALUES (?,?) ON CONFLICT  (`name`) DO UPDATE SET `description` = ? WHERE (`main`.`Scope`.`name` = ? AND 1=1)"),
    ).toBe(false);
    expect(writesCatalog("INSERT INTO `main`.`AccessToken` (`id`, `tokenHash`) VALUES (?,?) RETURNING `id` AS `id`")).toBe(false);
  });

  it("recognises the direct SQL of db/sql.ts (double-quoted table, no schema)", () => {
    expect(writesCatalog(`INSERT INTO "AuditEvent" ("id", "at", "type") VALUES (?, ?, ?)`)).toBe(false);
    expect(writesCatalog(`UPDATE "AccessToken" SET "status" = 'revoked' WHERE "id" = ?`)).toBe(false);
    expect(writesCatalog(`UPDATE "Credential" SET "status" = 'revoked' WHERE "id" = ?`)).toBe(true);
  });

  it("ignores case and leading whitespace", () => {
    expect(writesCatalog("  \n\tupdate `main`.`Credential` set `status` = ?")).toBe(true);
    expect(writesCatalog("\n  delete from \"public\".\"AccessToken\" where \"id\" = $1")).toBe(false);
  });

  it("matches the whole table name, not a prefix or suffix of it", () => {
    // "AppLog" and "UserApp" are not uncached tables: unknown tables count as catalog.
    expect(writesCatalog("INSERT INTO `main`.`UserApp` (`id`) VALUES (?)")).toBe(true);
    expect(writesCatalog("DELETE FROM `main`.`AccessTokenArchive` WHERE 1")).toBe(true);
    expect(writesCatalog("UPDATE `main`.`user` SET `x` = ?")).toBe(true); // table names are case-sensitive here
  });

  it.each([
    "SELECT `main`.`Credential`.`id` FROM `main`.`Credential` WHERE `main`.`Credential`.`consumerKey` = ?",
    `SELECT "id" FROM "public"."Credential" WHERE "status" = 'UPDATE'`,
    "  select 1",
    "PRAGMA journal_mode = WAL",
    "PRAGMA wal_checkpoint(PASSIVE)",
    "BEGIN IMMEDIATE",
    "COMMIT",
  ])("does not count a read or a pragma: %s", (sql) => {
    expect(writesCatalog(sql)).toBe(false);
  });

  it.each([
    "REPLACE INTO x (a) VALUES (1)",
    "INSERT OR REPLACE INTO `main`.`AccessToken` (`id`) VALUES (?)",
    "INSERT OR IGNORE INTO \"AuditEvent\" (\"id\") VALUES (?)",
    "UPDATE Credential SET status = 'revoked'",
    "UPDATE AccessToken SET status = 'revoked'",
    "DELETE FROM [App] WHERE id = 1",
    'UPDATE "my-schema"."AccessToken" SET "status" = 1',
  ])("counts a write it cannot attribute as a catalog write (safe default): %s", (sql) => {
    expect(writesCatalog(sql)).toBe(true);
  });
});

describe("writesTokens", () => {

  describe.each(["AccessToken", "User", ...CATALOG_TABLES])("an update or delete of %s", (table) => {
    it.each(writes(table).filter((sql) => !/^INSERT/.test(sql)))("empties the token cache: %s", (sql) => {
      expect(writesTokens(sql)).toBe(true);
    });
  });

  describe.each(NEUTRAL_TABLES)("a write to %s", (table) => {
    it.each(writes(table))("leaves the token cache alone: %s", (sql) => {
      expect(writesTokens(sql)).toBe(false);
    });
  });

  it.each(writes("AccessToken").filter((sql) => /^INSERT/.test(sql)))("leaves it alone for a new token row: %s", (sql) => {
    expect(writesTokens(sql)).toBe(false);
  });

  it("counts the revocations of db/stores/tokens.ts (revokeTokensOf) as Prisma 6 emits them on SQLite", () => {
    expect(writesTokens("UPDATE `main`.`AccessToken` SET `status` = ?, `revokedAt` = ? WHERE (`main`.`AccessToken`.`appId` = ? AND `main`.`AccessToken`.`status` = ?)")).toBe(true);
  });

  it.each(["INSERT OR REPLACE INTO `main`.`AccessToken` (`id`) VALUES (?)", "UPDATE AccessToken SET status = 'revoked'", "DELETE FROM [User] WHERE id = 1"])(
    "counts a write it cannot attribute (safe default): %s",
    (sql) => {
      expect(writesTokens(sql)).toBe(true);
    },
  );

  it.each(["SELECT `id` FROM `main`.`AccessToken` WHERE `id` = ?", "PRAGMA wal_checkpoint(PASSIVE)", "COMMIT"])("does not count a read: %s", (sql) => {
    expect(writesTokens(sql)).toBe(false);
  });
});
