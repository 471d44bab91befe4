/**
 * DEMO ONLY — NEVER TRUST THIS KEY OUTSIDE A LAPTOP. The signing key pair (Ed25519, EdDSA) of a
 * pretend open-banking directory, published here so that `npm start`'s printed registration
 * command, the README and the tests can sign software statements (RFC 7591 §2.3) that the demo's
 * registration endpoint accepts. Anyone can read the private key and sign any statement with it:
 * like the other demo credentials (seed.ts, fapi-key.ts), the demo directory may be trusted only
 * where SEED_DEMO is on (the default for `npm start`), which production turns off.
 */
import { randomUUID } from "node:crypto";
import { importJWK, SignJWT } from "jose";
import { DEMO_FAPI_PUBLIC_JWKS } from "./fapi-key.js";
import { DEMO } from "./seed.js";

/** The demo directory's issuer identifier: the `iss` of its statements. */
export const DEMO_DIRECTORY_ISSUER = "https://directory.tollgate-demo.example";

/** PUBLIC DEMO DATA: the demo directory's private signing key (Ed25519). */
export const DEMO_DIRECTORY_PRIVATE_JWK = {
  kty: "OKP",
  crv: "Ed25519",
  x: "iO5LAfLUWjFosO94Yr494swLraXTMHJ6nzMQXX8wfBA",
  d: "Uqb6C5zt5bqgqdFek3rPsBPvmImzLa12uDCdlCfP-ac",
  kid: "demo-directory-2026",
  alg: "EdDSA",
  use: "sig",
} as const;

/** The public half, as a JWK Set: what the demo configures as the trusted directory's keys. */
export const DEMO_DIRECTORY_PUBLIC_JWKS = {
  keys: [{ kty: "OKP", crv: "Ed25519", x: DEMO_DIRECTORY_PRIVATE_JWK.x, kid: DEMO_DIRECTORY_PRIVATE_JWK.kid, alg: "EdDSA", use: "sig" }],
};

/**
 * The demo TPP's software, as the demo directory describes it: account information and payment
 * initiation roles, the organization of the demo seed, and the public key of the FAPI demo app
 * (fapi-key.ts), so that `npm run demo:fapi`'s key can authenticate the registered client.
 */
export const DEMO_SOFTWARE = {
  softwareId: "acme-open-banking-dcr",
  clientName: "Acme Open Banking (registered)",
  /** https only: dynamic registration refuses http redirect URIs, loopback included. */
  redirectUri: "https://localhost:8443/callback",
  roles: ["PSP_AI", "PSP_PI"],
  organizationId: "acme-fintech-demo",
} as const;

/** How long a demo statement is valid by default, in seconds (24 hours): long enough to paste `npm start`'s command. */
export const DEMO_STATEMENT_LIFETIME_SECONDS = 86_400;

/** What {@link signDemoSoftwareStatement} may change. */
export interface DemoStatementOptions {
  /** Claims added to, or replacing, the demo's (a claim set to undefined is left out). */
  claims?: Record<string, unknown>;
  /** The statement's `iat`; now when left out. */
  now?: Date;
  /** Seconds from `now` to `exp`; null for a statement without `exp`. {@link DEMO_STATEMENT_LIFETIME_SECONDS} when left out. */
  lifetimeSeconds?: number | null;
}

/**
 * A software statement for {@link DEMO_SOFTWARE}, signed (EdDSA) by the demo directory's key, with
 * the UK Open Banking claim names: `iss` {@link DEMO_DIRECTORY_ISSUER}, `iat`, `exp`, a random
 * `jti`, `software_id`, `software_client_name`, `software_redirect_uris`, `software_roles`,
 * `jwks` (the FAPI demo app's public key), `org_id`, `org_name`.
 * @returns the compact JWS.
 */
export async function signDemoSoftwareStatement(options: DemoStatementOptions = {}): Promise<string> {
  const iat = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const lifetime = options.lifetimeSeconds === undefined ? DEMO_STATEMENT_LIFETIME_SECONDS : options.lifetimeSeconds;
  const claims: Record<string, unknown> = {
    iss: DEMO_DIRECTORY_ISSUER,
    iat,
    ...(lifetime !== null && { exp: iat + lifetime }),
    jti: randomUUID(),
    software_id: DEMO_SOFTWARE.softwareId,
    software_client_name: DEMO_SOFTWARE.clientName,
    software_redirect_uris: [DEMO_SOFTWARE.redirectUri],
    software_roles: [...DEMO_SOFTWARE.roles],
    jwks: DEMO_FAPI_PUBLIC_JWKS,
    org_id: DEMO_SOFTWARE.organizationId,
    org_name: DEMO.organization,
    ...options.claims,
  };
  const payload = Object.fromEntries(Object.entries(claims).filter(([, value]) => value !== undefined));
  const key = await importJWK(DEMO_DIRECTORY_PRIVATE_JWK, "EdDSA");
  return new SignJWT(payload).setProtectedHeader({ alg: "EdDSA", kid: DEMO_DIRECTORY_PRIVATE_JWK.kid, typ: "JWT" }).sign(key);
}
