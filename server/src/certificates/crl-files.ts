/**
 * The CRL files a bank configures (TLS_CLIENT_CRLS), read at start and again on a schedule
 * (CRL_RELOAD_SECONDS), so that the CRLs its QTSPs publish take effect without a restart:
 *
 * - a file whose bytes changed is parsed again (crl.ts `parseCrls`) and its CRLs replace the
 *   file's previous ones; an unchanged file costs one read and one comparison;
 * - a file that cannot be read or parsed keeps its last good CRLs, and the failure is reported:
 *   those CRLs go on counting until their nextUpdate, after which trust.ts refuses the
 *   certificates of their CA (`crl_expired`, fail closed) until a fresh CRL is loaded;
 * - a CRL past its nextUpdate after a reload is reported too, so that operators see the refusals
 *   coming from the log rather than from TPPs.
 *
 * Nothing is fetched from the network: whoever publishes the files (a cron job, a sidecar)
 * fetches them from the QTSPs' distribution points.
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { parseCrls, type ParsedCrl } from "./crl.js";
import { isCurrent } from "./trust.js";

/** What a reload reports, per file. */
export interface CrlReloadReport {
  /** The file changed and its CRLs were replaced. */
  loaded(file: string, crls: readonly ParsedCrl[]): void;
  /** The file could not be read or parsed: its last good CRLs are kept. */
  failed(file: string, error: unknown): void;
  /** A CRL of the file is past its nextUpdate (or not yet valid) at the time of the reload. */
  notCurrent(file: string, crl: ParsedCrl): void;
}

interface Loaded {
  bytes: Buffer;
  crls: readonly ParsedCrl[];
}

/** The CRLs of the configured files, as last loaded. */
export class CrlFiles {
  private readonly byFile = new Map<string, Loaded>();
  private all: readonly ParsedCrl[] = [];

  /**
   * Reads and parses every file now, at start.
   * @throws as `readFileSync` and crl.ts `parseCrls`: a bad file at start is a configuration error.
   */
  constructor(private readonly files: readonly string[]) {
    for (const file of files) {
      const bytes = readFileSync(file);
      this.byFile.set(file, { bytes, crls: parseCrls(bytes) });
    }
    this.all = this.flatten();
  }

  /** The CRLs of every file, in the order of the files: what trust.ts checks against. */
  get crls(): readonly ParsedCrl[] {
    return this.all;
  }

  /**
   * Reads every file again (this file's header). Never throws: a file's failure is `report.failed`.
   * @param now - the time CRLs are reported as not current at.
   */
  async reload(report: CrlReloadReport, now: Date): Promise<void> {
    for (const file of this.files) {
      try {
        const bytes = await readFile(file);
        if (bytes.equals(this.byFile.get(file)!.bytes)) continue;
        const crls = parseCrls(bytes);
        this.byFile.set(file, { bytes, crls });
        report.loaded(file, crls);
      } catch (error) {
        report.failed(file, error);
      }
    }
    this.all = this.flatten();
    for (const [file, { crls }] of this.byFile) for (const crl of crls) if (!isCurrent(crl, now)) report.notCurrent(file, crl);
  }

  /**
   * Reloads every `seconds` seconds until the returned function is called. A reload does not
   * start while the previous one runs; the timer does not keep the process alive.
   */
  schedule(seconds: number, report: CrlReloadReport): () => void {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      void this.reload(report, new Date()).finally(() => {
        running = false;
      });
    }, seconds * 1000);
    timer.unref();
    return () => clearInterval(timer);
  }

  private flatten(): readonly ParsedCrl[] {
    return [...this.byFile.values()].flatMap((loaded) => loaded.crls);
  }
}
