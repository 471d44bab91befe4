/**
 * A throwaway PostgreSQL cluster for the fault tests: initdb into a temp directory, a
 * server on a free port of 127.0.0.1 (trust authentication, superuser `postgres`), and
 * pg_ctl to stop and start it under load. The machine's own server (127.0.0.1:5432) is
 * never touched. initdb refuses to run as root, so the binaries of
 * /usr/lib/postgresql/<newest>/bin run as the `postgres` OS user (`runuser`) when this
 * process is root, in a directory owned by that user.
 */
import { execFile as execFileCallback } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { freePort } from "./free-port.js";

const execFile = promisify(execFileCallback);

/** Where Debian puts the versions of PostgreSQL. */
const POSTGRESQL_ROOT = "/usr/lib/postgresql";
/** The OS user the server runs as when this process is root. */
const OS_USER = "postgres";

/** A running throwaway cluster. */
export interface PgCluster {
  /** TCP port on 127.0.0.1. */
  port: number;
  /** `postgresql://postgres@127.0.0.1:<port>/postgres`: trust authentication, the `postgres` superuser. */
  url: string;
  /**
   * Stops the server with `pg_ctl stop -m <mode>` and waits until it is down (`immediate`:
   * every backend killed at once, as in a crash; `fast`: sessions ended, then a clean shutdown).
   */
  stop(mode?: "immediate" | "fast"): Promise<void>;
  /** Starts the server again on the same port and data, returning once it accepts connections (`pg_ctl start -w`). */
  start(): Promise<void>;
  /** Stops the server (if running) and deletes its directory. */
  destroy(): Promise<void>;
}

/** The bin directory of the newest PostgreSQL installed. @throws when there is none. */
function binDirectory(): string {
  const versions = existsSync(POSTGRESQL_ROOT) ? readdirSync(POSTGRESQL_ROOT).filter((v) => existsSync(path.join(POSTGRESQL_ROOT, v, "bin", "initdb"))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error(`no PostgreSQL binaries under ${POSTGRESQL_ROOT}/<version>/bin`);
  return path.join(POSTGRESQL_ROOT, newest, "bin");
}

/**
 * Creates and starts a cluster on a free port.
 * @returns the running cluster; call `destroy()` when done.
 * @throws when the binaries are missing or initdb / pg_ctl fail (their stderr in the message).
 */
export async function startPgCluster(): Promise<PgCluster> {
  const bin = binDirectory();
  const dir = mkdtempSync(path.join(tmpdir(), "tollgate-pg-"));
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const { stdout } = await execFile("id", ["-u", OS_USER]);
    const { stdout: gid } = await execFile("id", ["-g", OS_USER]);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  const run = async (tool: string, args: string[]) => {
    const command = asRoot ? ["runuser", "-u", OS_USER, "--", path.join(bin, tool), ...args] : [path.join(bin, tool), ...args];
    try {
      return await execFile(command[0]!, command.slice(1), { cwd: dir, timeout: 60_000 });
    } catch (err) {
      const { stderr, stdout } = err as { stderr?: string; stdout?: string };
      throw new Error(`${tool} ${args.join(" ")} failed: ${stderr || stdout || String(err)}`);
    }
  };
  const data = path.join(dir, "data");
  const log = path.join(dir, "server.log");
  await run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C"]);
  const port = await freePort();
  // Its socket goes into the temp directory, not /var/run/postgresql where the machine's server has its own.
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c full_page_writes=off`;
  const start = async () => void (await run("pg_ctl", ["-D", data, "-l", log, "-o", options, "-w", "-t", "30", "start"]));
  const stop = async (mode: "immediate" | "fast" = "immediate") => void (await run("pg_ctl", ["-D", data, "-m", mode, "-w", "-t", "30", "stop"]));
  let running = false;
  await start();
  running = true;
  return {
    port,
    url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
    async stop(mode) {
      await stop(mode);
      running = false;
    },
    async start() {
      await start();
      running = true;
    },
    async destroy() {
      if (running) await stop("immediate").catch(() => {});
      running = false;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
