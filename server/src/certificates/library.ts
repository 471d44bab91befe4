/**
 * The one place that loads @peculiar/x509, so that its two set-up steps happen before any use:
 *
 * - `reflect-metadata` first: @peculiar/x509 registers its algorithms with tsyringe, which throws
 *   at import time without the Reflect metadata polyfill (ESM evaluates this file's imports in
 *   order, so the polyfill is in place when @peculiar/x509 is evaluated);
 * - its crypto provider set to Node's WebCrypto (`node:crypto` `webcrypto`), which it uses to
 *   verify CRL signatures (trust.ts) and to make the test PKI (certificate signatures are checked
 *   by OpenSSL instead: x509.ts says why).
 *
 * The other modules of certificates/ import `x509` from here, never from the package directly.
 */
import "reflect-metadata";
import { webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(webcrypto);

export { x509 };

