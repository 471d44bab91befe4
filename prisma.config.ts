/**
 * Prisma CLI configuration (Prisma 6.19, binary-free mode).
 *
 * `engine: "js"` with the better-sqlite3 driver adapter runs the schema engine as
 * WebAssembly, so `prisma migrate deploy|diff|dev` never download a native engine.
 * The server applies the committed migrations itself on start (server/src/db/migrate.ts);
 * this file is for the CLI (`npm run db:migrate`, `prisma migrate diff`, `prisma migrate dev`).
 */
import path from "node:path";
import { defineConfig } from "prisma/config";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";

// The schema reads DATABASE_URL too; give both the same default as server/src/config.ts.
process.env.DATABASE_URL ??= "file:./data/tollgate.db";
const url = process.env.DATABASE_URL;

export default defineConfig({
  schema: path.join("prisma", "schema.prisma"),
  experimental: { adapter: true },
  engine: "js",
  adapter: async () => new PrismaBetterSQLite3({ url }),
});
