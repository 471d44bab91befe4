/**
 * Peer of `npm run bench` scenario `refresh-fapi`: oidc-provider (panva, 9.13) set up as our
 * demo `fapi2` app is used: the FAPI 2.0 profile (`features.fapi` profile '2.0': PKCE S256
 * required, a client assertion's `aud` must be the issuer), DPoP (RFC 9449) and pushed
 * authorization requests (RFC 9126) on, and one static client (bench/peers/client.ts
 * PEER_FAPI_CLIENT) authenticating with private_key_jwt (ES256) under the public key of our
 * demo fapi2 app (server/src/demo/fapi-key.ts), DPoP-bound access tokens, grant types
 * authorization_code and refresh_token, PAR required. As FAPI 2.0 asks, and as ours does for
 * a fapi2 app, refresh tokens are not rotated (`rotateRefreshToken: false`), and every code
 * exchange issues one (`issueRefreshToken`: no `offline_access` scope needed, as with ours).
 * Generated signing and cookie keys, the default in-memory adapter (which also remembers the
 * used `jti`s of client assertions and DPoP proofs), opaque access tokens.
 * No dev interactions: every interaction is answered at once by this process
 * (bench/peers/user-flow.ts).
 * Prints `listening on <issuer>` once it listens on 127.0.0.1 (any free port); the endpoints
 * are in `<issuer>/.well-known/openid-configuration`.
 * Env: none.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import Provider from "oidc-provider";
import { listenPeer } from "./listen.js";
import { DEMO_FAPI_PUBLIC_JWKS } from "../../server/src/demo/fapi-key.js";
import { PEER_FAPI_CLIENT } from "./client.js";
import { answeringInteractions, USER_FLOW_CONFIGURATION } from "./user-flow.js";

const { server, issuer, serve } = await listenPeer();

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: PEER_FAPI_CLIENT.clientId,
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      redirect_uris: [PEER_FAPI_CLIENT.redirectUri],
      token_endpoint_auth_method: "private_key_jwt",
      token_endpoint_auth_signing_alg: "ES256",
      // The provider's one signing key is ES256 (no ID token is issued: no openid scope).
      id_token_signed_response_alg: "ES256",
      jwks: DEMO_FAPI_PUBLIC_JWKS,
      dpop_bound_access_tokens: true,
      require_pushed_authorization_requests: true,
      scope: PEER_FAPI_CLIENT.scope,
    },
  ],
  scopes: PEER_FAPI_CLIENT.scope.split(" "),
  jwks: { keys: [{ ...generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "jwk" }), use: "sig", alg: "ES256" }] },
  cookies: { keys: [randomBytes(32).toString("hex")] },
  ...USER_FLOW_CONFIGURATION,
  rotateRefreshToken: false,
  features: {
    devInteractions: { enabled: false },
    fapi: { enabled: true, profile: "2.0" },
    dPoP: { enabled: true },
    pushedAuthorizationRequests: { enabled: true, requirePushedAuthorizationRequests: true },
  },
});
serve(answeringInteractions(provider));
console.log(`listening on ${issuer}`);
process.once("SIGTERM", () => server.close(() => process.exit(0)).closeAllConnections());
