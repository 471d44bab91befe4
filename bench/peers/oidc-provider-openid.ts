/**
 * Peer of `npm run bench` scenario `code-openid`: oidc-provider (panva, 9.13) as an OpenID
 * Provider, set up as our demo strict app is used there: one static confidential client
 * (bench/peers/client.ts PEER_OIDC_CLIENT) with client_secret_basic, grant types
 * authorization_code and refresh_token, scope `openid`, and ID tokens signed PS256
 * (`id_token_signed_response_alg`) with the provider's one signing key, RSA 2048 with `alg`
 * PS256, as ours signs them by default. PKCE is verified when the authorization request had a
 * challenge (the benchmark always sends one), and every code exchange issues a refresh token,
 * as ours does. Generated signing and cookie keys, opaque access tokens. No dev
 * interactions: every interaction is answered at once by this process
 * (bench/peers/user-flow.ts).
 * The store is oidc-provider's in-memory adapter (its MemoryAdapter and LRU) with room for
 * {@link STORE_ENTRIES} entries rather than its default 1,000, which would drop a run's codes
 * (made before the run, a few entries each with their grant and tokens) before they are
 * exchanged. A process of its own, so that the issuance peer (bench/peers/oidc-provider.ts)
 * keeps the default store.
 * Prints `listening on <issuer>` once it listens on 127.0.0.1 (any free port); the endpoints
 * are in `<issuer>/.well-known/openid-configuration`.
 * Env: none.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import Provider from "oidc-provider";
import MemoryAdapter from "oidc-provider/lib/adapters/memory_adapter.js";
import LRU from "oidc-provider/lib/helpers/lru.js";
import { listenPeer } from "./listen.js";
import { PEER_OIDC_CLIENT } from "./client.js";
import { answeringInteractions, USER_FLOW_CONFIGURATION } from "./user-flow.js";

/** Entries the store keeps (sessions, interactions, grants, codes, tokens): a whole `npm run bench` run's. */
const STORE_ENTRIES = 200_000;

const { server, issuer, serve } = await listenPeer();

const store = new LRU({ maxSize: STORE_ENTRIES });
const provider = new Provider(issuer, {
  adapter: (model: string) => new MemoryAdapter(model, store),
  clients: [
    {
      client_id: PEER_OIDC_CLIENT.consumerKey,
      client_secret: PEER_OIDC_CLIENT.consumerSecret,
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      redirect_uris: [PEER_OIDC_CLIENT.redirectUri],
      token_endpoint_auth_method: "client_secret_basic",
      id_token_signed_response_alg: "PS256",
      scope: PEER_OIDC_CLIENT.scope,
    },
  ],
  scopes: PEER_OIDC_CLIENT.scope.split(" "),
  jwks: { keys: [{ ...generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" }), use: "sig", alg: "PS256" }] },
  cookies: { keys: [randomBytes(32).toString("hex")] },
  ...USER_FLOW_CONFIGURATION,
  features: { devInteractions: { enabled: false } },
});
serve(answeringInteractions(provider));
console.log(`listening on ${issuer}`);
process.once("SIGTERM", () => server.close(() => process.exit(0)).closeAllConnections());
