/**
 * Peer of `npm run bench`: oidc-provider (panva, 9.13) as production-like as the benchmark
 * needs: no dev interactions, generated signing keys and cookie keys, the default in-memory
 * adapter, and one static confidential client (bench/support.ts PEER_CLIENT) allowed
 * grant_types ['client_credentials'] with client_secret_basic. Features clientCredentials
 * and introspection are on; access tokens are opaque (no resource indicator is sent, so
 * they are not JWTs). The client asks for the demo app's scopes, so each token carries the
 * same scopes as ours. Prints `listening on <issuer>` once it listens on 127.0.0.1 (any free
 * port); the endpoints are in `<issuer>/.well-known/openid-configuration`.
 * Env: none.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import Provider from "oidc-provider";
import { listenPeer } from "./listen.js";
import { PEER_CLIENT } from "./client.js";

const { server, issuer, serve } = await listenPeer();

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: PEER_CLIENT.consumerKey,
      client_secret: PEER_CLIENT.consumerSecret,
      grant_types: ["client_credentials"],
      response_types: [],
      redirect_uris: [],
      token_endpoint_auth_method: "client_secret_basic",
      scope: PEER_CLIENT.scope,
    },
  ],
  scopes: PEER_CLIENT.scope.split(" "),
  jwks: { keys: [{ ...generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" }), use: "sig", alg: "RS256" }] },
  cookies: { keys: [randomBytes(32).toString("hex")] },
  ttl: { ClientCredentials: 3600 },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    // A confidential client may introspect its own tokens.
    introspection: { enabled: true, allowedPolicy: async (_ctx: unknown, client: { clientId: string }, token: { clientId?: string }) => token.clientId === client.clientId },
  },
});
serve(provider.callback());
console.log(`listening on ${issuer}`);
process.once("SIGTERM", () => server.close(() => process.exit(0)).closeAllConnections());
