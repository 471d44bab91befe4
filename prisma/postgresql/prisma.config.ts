/**
 * Prisma CLI configuration for the PostgreSQL variant of the schema (binary-free, like
 * ../../prisma.config.ts). schema.prisma here is derived from ../schema.prisma by
 * `npm run db:derive-postgresql`; do not edit it by hand.
 */
import path from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import { defineConfig } from "prisma/config";

process.env.DATABASE_URL ??= "postgresql://root@127.0.0.1:5432/test";
const connectionString = process.env.DATABASE_URL;

export default defineConfig({
  schema: path.join(import.meta.dirname, "schema.prisma"),
  experimental: { adapter: true },
  engine: "js",
  adapter: async () => new PrismaPg({ connectionString }),
});
