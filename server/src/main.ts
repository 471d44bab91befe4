/**
 * `npm start`: runs Tollgate with the environment's configuration and prints where it
 * listens and, with the demo on, the demo credentials and ready-to-paste curl lines.
 */
import { loadConfig } from "./config.js";
import { signDemoSoftwareStatement } from "./demo/directory.js";
import { DEMO } from "./demo/seed.js";
import { totpUri } from "./interaction/factors.js";
import { startServer } from "./server.js";

const config = loadConfig();
const running = await startServer(config);

const lines = [``, `Tollgate is listening on ${running.url}  (base_url ${config.baseUrl}, auth_url ${config.authUrl}; Node ${process.version})`];
if (config.seedDemo) {
  const basic = Buffer.from(`${DEMO.app.consumerKey}:${DEMO.app.consumerSecret}`).toString("base64");
  lines.push(
    ``,
    `Demo data (SEED_DEMO=true; public credentials, for local use only):`,
    `  organization    ${DEMO.organization}, developer ${DEMO.developerEmail}`,
    `  app             ${DEMO.app.name}`,
    `  consumer key    ${DEMO.app.consumerKey}`,
    `  consumer secret ${DEMO.app.consumerSecret}`,
    `  end user        ${DEMO.user.username} / ${DEMO.user.password}, second factor: an authenticator app with the public demo key`,
    `                  ${totpUri(DEMO.user.username, DEMO.user.totpSecret, config.brand.name)}`,
    `                  npm run demo:totp   # prints her current one-time code (the PSD2 scopes need SCA: password + code)`,
    `  administrator   ${DEMO.admin.username} / ${DEMO.admin.password}  (console: ${config.authUrl}/admin), second factor: the public demo key`,
    `                  ${totpUri(DEMO.admin.username, DEMO.admin.totpSecret, config.brand.name)}`,
    `                  npm run demo:totp -- admin   # prints the administrator's current one-time code`,
    `  demo upstream   ${running.demoUpstreamUrl} (sample accounts API behind ${config.baseUrl}/accounts, products behind ${config.baseUrl}/products, payments API behind ${config.baseUrl}/payments)`,
    ``,
    `Get a token (client credentials):`,
    `  curl -s -X POST ${config.baseUrl}/oauth2/v1/token -H 'Authorization: Basic ${basic}' -d grant_type=client_credentials`,
    ``,
    `Call an API with it: the bank's products (open data; account data needs the PSU, so ${config.baseUrl}/accounts/ answers this token 403):`,
    `  TOKEN=$(curl -s -X POST ${config.baseUrl}/oauth2/v1/token -u ${DEMO.app.consumerKey}:${DEMO.app.consumerSecret} -d grant_type=client_credentials | node -pe 'JSON.parse(require("fs").readFileSync(0)).access_token')`,
    `  curl -s ${config.baseUrl}/products/ -H "Authorization: Bearer $TOKEN"`,
    ``,
    `PSD2 consent (Berlin Group): create it with that token, then have alice authorize scope=AIS:<consentId> at /authorize; her token reads ${config.baseUrl}/accounts/:`,
    `  curl -s -X POST ${config.baseUrl}/psd2/v1/consents -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' -d '{"access":{"balances":[]},"recurringIndicator":true,"validUntil":"${new Date(Date.now() + 90 * 86_400_000).toISOString().slice(0, 10)}","frequencyPerDay":4}'`,
    ``,
    `FAPI 2.0 (PAR, private_key_jwt, DPoP-bound tokens):`,
    `  app             ${DEMO.fapiApp.name}`,
    `  consumer key    ${DEMO.fapiApp.consumerKey}  (no secret: private_key_jwt with the demo key in server/src/demo/fapi-key.ts, DEMO ONLY)`,
    `  ${config.baseUrl === "http://localhost:3000" ? "" : `BASE_URL=${config.baseUrl} `}npm run demo:fapi   # to see PAR + private_key_jwt + DPoP end to end`,
  );
  if (!config.registration.directory) {
    const registration = { software_statement: await signDemoSoftwareStatement(), token_endpoint_auth_method: "private_key_jwt", grant_types: ["client_credentials"] };
    lines.push(
      ``,
      `Dynamic client registration (RFC 7591) with a demo directory's software statement (valid 24 hours):`,
      `  curl -s -X POST ${config.baseUrl}/oauth2/v1/register -H 'Content-Type: application/json' -d '${JSON.stringify(registration)}'`,
    );
  }
}
console.log(lines.join("\n") + "\n");

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    running.logger.info({ signal }, "shutting down");
    void running.close().then(() => process.exit(0));
  });
}
