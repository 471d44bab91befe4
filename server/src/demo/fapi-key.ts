/**
 * DEMO ONLY — NEVER USE OUTSIDE A LAPTOP. The private signing key (ES256, P-256) of the
 * seeded `fapi2` demo app (demo/seed.ts `DEMO.fapiApp`), published here so that the README's
 * FAPI 2.0 walk-through (`npm run demo:fapi`) and the tests can sign its client assertions.
 * Anyone can read this key: like the other demo credentials, it exists only where
 * SEED_DEMO is on (the default for `npm start`), which production turns off.
 */
export const DEMO_FAPI_PRIVATE_JWK = {
  kty: "EC",
  crv: "P-256",
  x: "xfSwfykMo3EoX252CrDljQcW6i0CSLRa2BKqflZYLZY",
  y: "Arcm-lCbvg8JcadLXfxnnUN_rAx6fepQtV0bX52BfIA",
  d: "RDtc55fN2vAyz-2RKf-V4qgz82W5aoC_9a3AuQ8cTdI",
  kid: "demo-fapi-2026",
  alg: "ES256",
  use: "sig",
} as const;

/** The public half, registered as the demo app's JWK Set. */
export const DEMO_FAPI_PUBLIC_JWKS = {
  keys: [{ kty: "EC", crv: "P-256", x: DEMO_FAPI_PRIVATE_JWK.x, y: DEMO_FAPI_PRIVATE_JWK.y, kid: DEMO_FAPI_PRIVATE_JWK.kid, alg: "ES256", use: "sig" }],
};
