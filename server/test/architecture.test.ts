/**
 * The import rules of ARCHITECTURE.md "Dependency rules", enforced. dependency-cruiser's API runs
 * the rules of .dependency-cruiser.cjs over server/src (test files and the Prisma generated client
 * left out of the graph), and this file adds the one check the rules cannot express: no two
 * top-level folders of server/src depend on each other, directly or through other folders.
 *
 * The same checks run over the miniature trees of server/test/fixtures/architecture/<case>/, each
 * cruised with its folder as the base directory so that its modules are named server/src/... as in
 * the real tree: each fixture breaks one kind of rule and must be reported, and `layered` follows
 * them all and must not be.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { cruise, type ICruiseOptions, type ICruiseResult, type IViolation } from "dependency-cruiser";
import extractDepcruiseOptions from "dependency-cruiser/config-utl/extract-depcruise-options";
import extractTSConfig from "dependency-cruiser/config-utl/extract-ts-config";
import { beforeAll, describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const FIXTURES = path.join(REPO, "server/test/fixtures/architecture");
const SRC = "server/src/";

/** What server/src may hold (ARCHITECTURE.md "Layers"). */
const FOLDERS = ["kernel", "stores", "db", "generated", "oauth", "consents", "certificates", "registration", "gateway", "interaction", "admin", "maintenance", "demo", "keys", "oidc", "federation", "http", "observability"];
const ROOT_FILES = ["server.ts", "main.ts", "config.ts"];

let options: ICruiseOptions;
let tsConfig: ReturnType<typeof extractTSConfig>;

beforeAll(async () => {
  options = await extractDepcruiseOptions(path.join(REPO, ".dependency-cruiser.cjs"));
  tsConfig = extractTSConfig(path.join(REPO, "tsconfig.json"));
});

interface Findings {
  /** The rule violations dependency-cruiser reports. */
  violations: IViolation[];
  /** Each set of top-level folders (or root files) that depend on one another in a cycle. */
  folderCycles: FolderCycle[];
}

interface FolderCycle {
  folders: string[];
  /** Each dependency between two folders of the cycle, with one import that makes it. */
  edges: { from: string; to: string; example: string; count: number }[];
}

/** Cruises server/src of `baseDir` with the rules of .dependency-cruiser.cjs. */
async function check(baseDir: string): Promise<Findings> {
  const { output } = await cruise(
    [SRC.slice(0, -1)],
    { ...options, baseDir, tsConfig: { fileName: path.join(REPO, "tsconfig.json") } },
    undefined,
    { tsConfig },
  );
  const result = output as ICruiseResult;
  return { violations: result.summary.violations, folderCycles: folderCycles(result) };
}

/** The top-level folder of server/src a module belongs to, or the root file it is; undefined outside server/src. */
function folderOf(module: string): string | undefined {
  if (!module.startsWith(SRC)) return undefined;
  return module.slice(SRC.length).split("/")[0];
}

/** The strongly connected components of the folder graph that hold more than one folder (Tarjan). */
function folderCycles(result: ICruiseResult): FolderCycle[] {
  const edges = new Map<string, Map<string, { example: string; count: number }>>();
  for (const module of result.modules) {
    const from = folderOf(module.source);
    if (!from) continue;
    for (const dependency of module.dependencies) {
      const to = dependency.couldNotResolve ? undefined : folderOf(dependency.resolved);
      if (!to || to === from) continue;
      const targets = edges.get(from) ?? new Map<string, { example: string; count: number }>();
      edges.set(from, targets);
      const edge = targets.get(to);
      if (edge) edge.count += 1;
      else targets.set(to, { example: `${module.source} → ${dependency.resolved}`, count: 1 });
    }
  }

  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);

  return components.map((folders) => ({
    folders,
    edges: folders.flatMap((from) =>
      [...(edges.get(from) ?? [])].filter(([to]) => folders.includes(to)).map(([to, edge]) => ({ from, to, ...edge })),
    ),
  }));
}

/** One line per finding: the rule, then from → to (the whole cycle for a cycle). */
function report({ violations, folderCycles: cycles }: Findings): string[] {
  const lines = violations.map((v) => {
    const path = v.cycle?.length ? [v.from, ...v.cycle.map((step) => step.name)].join(" → ") : `${v.from} → ${v.to}`;
    return `${v.rule.name}: ${path}`;
  });
  for (const cycle of cycles) {
    const edges = cycle.edges.map((e) => `${e.from} → ${e.to} (${e.count} import${e.count === 1 ? "" : "s"}, e.g. ${e.example})`);
    lines.push(`no-folder-cycle: ${cycle.folders.join(" ⇄ ")}: ${edges.join("; ")}`);
  }
  return lines;
}

describe("server/src follows the layers of ARCHITECTURE.md", () => {
  it("holds only the folders and root files of the layout", () => {
    const entries = readdirSync(path.join(REPO, SRC), { withFileTypes: true });
    const unknown = entries
      .filter((e) => (e.isDirectory() ? !FOLDERS.includes(e.name) : !ROOT_FILES.includes(e.name) && !e.name.endsWith(".test.ts")))
      .map((e) => `${SRC}${e.name}${e.isDirectory() ? "/" : ""}`);
    expect(unknown, "server/src entries outside the layout of ARCHITECTURE.md").toEqual([]);
  });

  it("breaks no import rule: no module cycle, no folder cycle, Prisma and drivers only in db/, layers one way", async () => {
    const findings = await check(REPO);
    expect(report(findings), "import rule violations (rule: from → to); see .dependency-cruiser.cjs").toEqual([]);
  });
});

describe("the rules bite (server/test/fixtures/architecture)", () => {
  const fixture = (name: string) => check(path.join(FIXTURES, name));
  const pairs = (findings: Findings) => findings.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();

  it("reports a module cycle", async () => {
    const findings = await fixture("module-cycle");
    expect(report(findings)).toEqual(["no-circular: server/src/oauth/grant.ts → server/src/oauth/issue.ts → server/src/oauth/grant.ts"]);
  });

  it("reports two folders that depend on each other, with no module cycle", async () => {
    const findings = await fixture("folder-cycle");
    expect(findings.violations).toEqual([]);
    expect(report(findings)).toEqual([
      "no-folder-cycle: gateway ⇄ oauth: " +
        "gateway → oauth (1 import, e.g. server/src/gateway/router.ts → server/src/oauth/issue.ts); " +
        "oauth → gateway (1 import, e.g. server/src/oauth/introspection.ts → server/src/gateway/access.ts)",
    ]);
  });

  it("reports pg and the generated Prisma client imported outside db/, and not inside it", async () => {
    const findings = await fixture("database-outside-db");
    expect(pairs(findings)).toEqual([
      expect.stringMatching(/^database-only-in-db: server\/src\/maintenance\/purge\.ts → (\.\.\/)+node_modules\/pg\//),
      "database-only-in-db: server/src/oauth/clients.ts → server/src/generated/prisma/client.ts",
    ]);
  });

  it("reports layers imported the wrong way", async () => {
    const findings = await fixture("layer-breaches");
    expect(pairs(findings)).toEqual([
      "admin-only-from-http: server/src/gateway/forward.ts → server/src/admin/audit.ts",
      "domains-not-db: server/src/demo/seed.ts → server/src/db/sql.ts",
      "domains-not-http: server/src/gateway/forward.ts → server/src/http/app.ts",
      "kernel-imports-nothing: server/src/kernel/list.ts → server/src/stores/page.ts",
      "stores-import-only-kernel: server/src/stores/page.ts → server/src/db/sql.ts",
    ]);
  });

  it("reports nothing on a tree that follows the layout", async () => {
    expect(report(await fixture("layered"))).toEqual([]);
  });
});
