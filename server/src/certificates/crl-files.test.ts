import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { issueCrl, testPki, type TestPki } from "../../test/support/pki.js";
import { CrlFiles, type CrlReloadReport } from "./crl-files.js";

const DAY = 86_400_000;
let pki: TestPki;
let dir: string;
beforeAll(async () => {
  pki = await testPki();
  dir = mkdtempSync(path.join(tmpdir(), "tollgate-crl-files-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A file holding `text`; @returns its path. */
function file(name: string, text: string | Uint8Array): string {
  const at = path.join(dir, name);
  writeFileSync(at, text);
  return at;
}

/** A report that records every call. */
function recorder() {
  return { loaded: vi.fn(), failed: vi.fn(), notCurrent: vi.fn() } satisfies CrlReloadReport;
}

const ders = (files: CrlFiles) => files.crls.map((crl) => Buffer.from(crl.der).toString("base64"));

describe("CrlFiles", () => {
  it("reads every file at start, and refuses a file it cannot read or parse", () => {
    const files = new CrlFiles([file("a.crl", pki.crl.pem), file("b.crl", pki.rootCrl.der)]);
    expect(ders(files)).toEqual([pki.crl, pki.rootCrl].map((t) => Buffer.from(t.der).toString("base64")));
    expect(() => new CrlFiles([path.join(dir, "missing.crl")])).toThrow(/ENOENT/);
    expect(() => new CrlFiles([file("bad.crl", "not a CRL")])).toThrow();
  });

  it("reloads a changed file, leaves an unchanged one, keeps the last good CRLs of a broken one, and reports CRLs that are not current", async () => {
    const changing = file("changing.crl", pki.crl.pem);
    const steady = file("steady.crl", pki.rootCrl.pem);
    const files = new CrlFiles([changing, steady]);
    const report = recorder();

    await files.reload(report, pki.now);
    expect(report.loaded).not.toHaveBeenCalled();
    expect(report.notCurrent).not.toHaveBeenCalled();

    const fresh = await issueCrl({ issuer: pki.intermediate, thisUpdate: pki.now, nextUpdate: new Date(pki.now.getTime() + DAY), revoked: [{ certificate: pki.aisp }] });
    writeFileSync(changing, fresh.pem);
    await files.reload(report, pki.now);
    expect(report.loaded).toHaveBeenCalledTimes(1);
    expect(report.loaded.mock.calls[0]![0]).toBe(changing);
    expect(files.crls[0]!.revokedSerials.size).toBe(1);

    writeFileSync(changing, "-----BEGIN X509 CRL-----\nAAAA\n-----END X509 CRL-----\n");
    await files.reload(report, pki.now);
    expect(report.failed).toHaveBeenCalledTimes(1);
    expect(report.failed.mock.calls[0]![0]).toBe(changing);
    expect(files.crls[0]!.revokedSerials.size).toBe(1);

    // Two days on, the kept CRL is past its nextUpdate: reported, and trust.ts refuses its CA's certificates.
    await files.reload(report, new Date(pki.now.getTime() + 2 * DAY));
    expect(report.notCurrent).toHaveBeenCalledWith(changing, files.crls[0]);
    expect(report.notCurrent).toHaveBeenCalledTimes(1);
  });

  it("reloads on its schedule until stopped", async () => {
    vi.useFakeTimers();
    try {
      const files = new CrlFiles([file("scheduled.crl", pki.crl.pem)]);
      const reload = vi.spyOn(files, "reload").mockResolvedValue();
      const stop = files.schedule(60, recorder());
      await vi.advanceTimersByTimeAsync(120_000);
      expect(reload).toHaveBeenCalledTimes(2);
      stop();
      await vi.advanceTimersByTimeAsync(120_000);
      expect(reload).toHaveBeenCalledTimes(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
