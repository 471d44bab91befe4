/**
 * The import rules of server/src (ARCHITECTURE.md "Dependency rules"). server/test/architecture.test.ts
 * runs them through dependency-cruiser's API in `npm test`, together with the check this file cannot
 * express (no two top-level folders depending on each other); from the command line:
 *
 *   npx depcruise --config .dependency-cruiser.cjs server/src
 *
 * Paths are relative to the repository root. The test also runs these rules over the miniature trees
 * in server/test/fixtures/architecture/<case>/, each cruised with that folder as its base directory,
 * so there too the modules are named server/src/....
 *
 * Layers: kernel <- stores <- db (adapters) and the domains (oauth, gateway, interaction, admin,
 * maintenance, demo) <- http <- server.ts, main.ts (composition root).
 */

const SRC = "^server/src/";
/** The domain folders: they hold the use cases and see storage only through stores/. */
const DOMAIN_NAMES = "oauth|consents|certificates|registration|gateway|interaction|admin|maintenance|demo|keys|oidc|federation";
const DOMAINS = `(${DOMAIN_NAMES})`;
/** The composition root: the files directly in server/src. */
const ROOT_FILE = `${SRC}[^/]+$`;
/** Database drivers and the Prisma client, generated or not. */
const DATABASE_PACKAGES = "(^|/)node_modules/(@prisma/|\\.prisma/|prisma/|pg/|pg-[^/]+/|better-sqlite3/)";

/** @type {import("dependency-cruiser").IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "(a) No import cycle between modules, type-only imports included: split the shared part out.",
      from: { path: SRC },
      to: { circular: true },
    },
    {
      name: "database-only-in-db",
      severity: "error",
      comment:
        "(c) Prisma (@prisma/*, the generated client), pg and better-sqlite3 are imported only by db/, " +
        "the adapters. Everything else works on the store ports of stores/.",
      from: { path: SRC, pathNot: `${SRC}db/` },
      to: { path: [`${SRC}generated/`, DATABASE_PACKAGES] },
    },
    {
      name: "no-unresolvable",
      severity: "error",
      comment: "Every import resolves: an import of a file or package that is not there would escape the rules below.",
      from: { path: SRC },
      to: { couldNotResolve: true },
    },
    {
      name: "kernel-imports-nothing",
      severity: "error",
      comment: "(d) kernel/ is the shared kernel: it imports nothing else of server/src.",
      from: { path: `${SRC}kernel/` },
      to: { path: SRC, pathNot: `${SRC}kernel/` },
    },
    {
      name: "stores-import-only-kernel",
      severity: "error",
      comment: "(d) stores/ holds the store ports (interfaces and records): it imports only kernel/.",
      from: { path: `${SRC}stores/` },
      to: { path: SRC, pathNot: `${SRC}(stores|kernel)/` },
    },
    {
      name: "db-imports-only-kernel-stores-generated",
      severity: "error",
      comment: "(d) db/ implements the ports of stores/: it imports only kernel/, stores/ and generated/.",
      from: { path: `${SRC}db/` },
      to: { path: SRC, pathNot: `${SRC}(db|kernel|stores|generated)/` },
    },
    {
      name: "domains-not-db",
      severity: "error",
      comment: "(d) A domain folder reaches storage only through the ports of stores/, never db/.",
      from: { path: `${SRC}${DOMAINS}/` },
      to: { path: `${SRC}db/` },
    },
    {
      name: "domains-not-http",
      severity: "error",
      comment: "(d) http/ composes the domains; no domain imports http/.",
      from: { path: `${SRC}${DOMAINS}/` },
      to: { path: `${SRC}http/` },
    },
    {
      name: "domains-import-only-kernel-stores-domains",
      severity: "error",
      comment:
        "(d) A domain imports kernel/, stores/, other domains (one way: see the folder-cycle check of " +
        "architecture.test.ts) and the Config type of config.ts; nothing else of server/src.",
      from: { path: `${SRC}${DOMAINS}/` },
      // db/, http/, generated/ (database-only-in-db), server.ts and main.ts (composition-root-not-imported)
      // have rules of their own.
      to: { path: SRC, pathNot: [`${SRC}(${DOMAIN_NAMES}|kernel|stores|db|http|generated)/`, `${SRC}(config|server|main)\\.ts$`] },
    },
    {
      name: "http-imports-only-domains-kernel-stores",
      severity: "error",
      comment: "http/ composes the domains over kernel/ and stores/; the database is wired in by server.ts, not http/.",
      from: { path: `${SRC}http/` },
      to: { path: SRC, pathNot: [`${SRC}(${DOMAIN_NAMES}|kernel|stores|http|generated)/`, `${SRC}(config|server|main)\\.ts$`] },
    },
    {
      name: "config-is-a-leaf",
      severity: "error",
      comment: "config.ts (the parsed environment) imports nothing of server/src, so the domains and http/ may import its Config type.",
      from: { path: `${SRC}config\\.ts$` },
      to: { path: SRC },
    },
    {
      name: "admin-only-from-http",
      severity: "error",
      comment: "Nothing imports admin/ (the GraphQL admin API) but http/ and the composition root.",
      from: { path: SRC, pathNot: [`${SRC}(admin|http)/`, ROOT_FILE] },
      to: { path: `${SRC}admin/` },
    },
    {
      name: "composition-root-not-imported",
      severity: "error",
      comment: "server.ts and main.ts compose the application; only main.ts imports server.ts.",
      from: { path: SRC, pathNot: `${SRC}main\\.ts$` },
      to: { path: `${SRC}(server|main)\\.ts$` },
    },
  ],
  options: {
    // Only server/src is cruised: the Prisma generated client is a leaf (imports of it are kept, so
    // the rules see them), test files are not part of the graph.
    doNotFollow: { path: ["node_modules", `${SRC}generated/`] },
    exclude: { path: ["\\.test\\.ts$"] },
    // `import type` is a dependency too: a type-only cycle or layer breach is still one.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    moduleSystems: ["es6", "cjs"],
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"],
    },
    skipAnalysisNotInRules: true,
  },
};
