/**
 * Software statements of the demo directory (server/src/demo/directory.ts) for the suites that
 * register clients: an organization registers each software once (decisions.md "Dynamic client
 * registration"), so a suite that registers several clients gives each a software of its own.
 */
import { randomUUID } from "node:crypto";
import { DEMO_SOFTWARE, signDemoSoftwareStatement, type DemoStatementOptions } from "../../src/demo/directory.js";

/** A software id of its own: the demo's, a dash and a random suffix. */
export const newSoftwareId = (): string => `${DEMO_SOFTWARE.softwareId}-${randomUUID().slice(0, 8)}`;

/**
 * A demo statement as `signDemoSoftwareStatement` signs it, for a new software id unless
 * `options.claims` names one (or leaves `software_id` out, set to undefined).
 */
export function newSoftwareStatement(options: DemoStatementOptions = {}): Promise<string> {
  return signDemoSoftwareStatement({ ...options, claims: { software_id: newSoftwareId(), ...options.claims } });
}
