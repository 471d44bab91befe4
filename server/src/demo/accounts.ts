/**
 * DEMO: the account directory (consents/accounts.ts) of the demo bank, not part of the
 * product: every PSU holds the demo upstream's two sample accounts (demo/upstream.ts).
 */
import type { AccountDirectory } from "../consents/accounts.js";
import { DEMO_ACCOUNTS } from "./upstream.js";

export const demoAccountDirectory: AccountDirectory = {
  async accountsOf() {
    return DEMO_ACCOUNTS.map(({ iban, name, currency }) => ({ iban, name, currency }));
  },
};
