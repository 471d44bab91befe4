import { createRequire } from "node:module";
import { defineConfig } from "vitest/config";
import { assertSupportedRuntime } from "./server/test/support/runtime.js";

assertSupportedRuntime();

/** The test of `npm start`'s start time (server/test/runtime.test.ts). */
const START_TEST = "server/test/runtime.test.ts";

export default defineConfig({
  // One copy of graphql: @apollo/server, loaded by Node, gets the CommonJS build; without this
  // alias Vite would give server/src the ESM build, and two copies of graphql in one process
  // break schema validation and instanceof checks ("another module or realm").
  resolve: { alias: [{ find: /^graphql$/, replacement: createRequire(import.meta.url).resolve("graphql") }] },
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      // First and alone: the start-time test times `npm start`, not the load of the suites
      // running beside it on a two-core machine (groups run one after the other).
      { extends: true, test: { name: "start", include: [START_TEST], sequence: { groupOrder: 0 } } },
      {
        extends: true,
        test: {
          name: "suites",
          include: ["server/**/*.test.ts", "web/src/lib/**/*.test.ts"],
          // The cluster test needs PostgreSQL and Redis: it runs in the PostgreSQL pass only. The
          // durability test is about the SQLite file: it runs in the SQLite pass only. The fault
          // tests start their own PostgreSQL cluster and redis-server, and two instances over one
          // PostgreSQL database: once is enough, in the PostgreSQL pass.
          exclude: [
            START_TEST,
            ...(process.env.TEST_DATABASE === "postgresql" ? ["server/test/durability.test.ts"] : ["server/test/cluster.test.ts", "server/test/faults.test.ts"]),
          ],
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
