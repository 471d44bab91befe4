/**
 * HTTP suite for step-up at the gateway (RFC 9470 §3): an API that requires an
 * authentication level (`requiredAcr`) or a recent sign-in (`maxAgeSeconds`) refuses a
 * user's token whose authentication falls short with 401 `insufficient_user_authentication`,
 * a `WWW-Authenticate` challenge naming `acr_values` and/or `max_age`, and the RFC 6750 JSON
 * error body; it accepts a token that meets it. A real server with the demo seed on a fresh
 * database, the APIs, product, app and users made through the admin API, tokens from the
 * real authorization code flow with PKCE (password only, or password and a software passkey
 * that support/flow.ts answers the factor stage with); nothing is mocked.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { ACR_PASSWORD, ACR_SCA } from "../src/kernel/acr.js";
import { TOKEN_ENDPOINT, callApi, expectOAuthError, pkcePair, randomState, tokenRequest, userTokens, type DemoClient, type Json } from "./support/flow.js";
import { adminBearer, type GraphQLClient } from "./support/graphql.js";
import { enrolPasskey, startTestServer, type TestServer } from "./support/server.js";

let server: TestServer;
let admin: GraphQLClient;
/** An app of the demo developer granted the step-up product (scope aisp), with the demo callback. */
let app: DemoClient;
/** A user without factors: password-only sign-ins (acr urn:tollgate:pwd). */
let passwordUser: { id: string; username: string; password: string };
/** A user with a passkey: sign-ins with two factors (acr urn:tollgate:sca). */
let scaUser: { id: string; username: string; password: string };
/** API ids by name. */
const apiIds: Record<string, string> = {};

/** The challenge of a password-only token at an API requiring SCA (RFC 9470 §3, Figure 2). */
const SCA_CHALLENGE =
  'Bearer realm="tollgate", error="insufficient_user_authentication", error_description="the user\'s authentication is not strong enough; this API requires strong customer authentication", acr_values="urn:tollgate:sca", DPoP realm="tollgate", algs="PS256 ES256 EdDSA"';

const UPDATE_API = "mutation($id: ID!, $input: UpdateApiInput!) { updateApi(id: $id, input: $input) { id requiredAcr maxAgeSeconds } }";

/** Creates a user (role user) through the admin API. */
async function newUser(prefix: string): Promise<{ id: string; username: string; password: string }> {
  const username = `${prefix}-${randomState().replace(/[^A-Za-z0-9]/g, "").slice(0, 8).toLowerCase()}`;
  const password = `${username}-password-${randomState()}`;
  const { createUser } = await admin.data("mutation($input: CreateUserInput!) { createUser(input: $input) { id } }", { input: { username, password } });
  return { id: createUser.id, username, password };
}

/** Creates an API on the demo upstream requiring scope aisp and the given step-up. */
async function newApi(name: string, stepUp: { requiredAcr?: string; maxAgeSeconds?: number }): Promise<void> {
  const { createApi } = await admin.data("mutation($input: CreateApiInput!) { createApi(input: $input) { id } }", {
    input: { name, upstreamUrl: server.demoUpstreamUrl, requiredScopes: ["aisp"], ...stepUp },
  });
  apiIds[name] = createApi.id;
}

/** A password-only access token of {@link passwordUser} (authorization code flow with PKCE, no factor stage: no factor, no SCA product). */
async function passwordToken(): Promise<string> {
  return (await userTokens(server.url, { client: app, user: passwordUser, pkce: pkcePair() })).tokens.access_token as string;
}

/**
 * An access token of {@link scaUser} signed in with the password and the passkey: the factor
 * stage is entered because the user has a factor, and support/flow.ts obtainCode answers it
 * with the passkey enrolled in beforeAll.
 */
async function scaToken(): Promise<string> {
  return (await userTokens(server.url, { client: app, user: scaUser, pkce: pkcePair() })).tokens.access_token as string;
}

/** Calls `/<api>/` with `token`. */
const call = (api: string, token: string) => callApi(server.url, token, `/${api}/`);

beforeAll(async () => {
  server = await startTestServer();
  admin = await adminBearer(server.url);
  await newApi("stepup-sca", { requiredAcr: ACR_SCA });
  await newApi("stepup-pwd", { requiredAcr: ACR_PASSWORD });
  await newApi("stepup-fresh", { maxAgeSeconds: 60 });
  await newApi("stepup-sca-fresh", { requiredAcr: ACR_SCA, maxAgeSeconds: 60 });
  await newApi("stepup-open", {});
  const { createApiProduct } = await admin.data("mutation($input: CreateApiProductInput!) { createApiProduct(input: $input) { id requiresSca } }", {
    input: { name: "Stepup-v1", scopes: ["aisp"], apiIds: Object.values(apiIds) },
  });
  expect(createApiProduct.requiresSca).toBe(false);
  const { developers } = await admin.data("{ developers { nodes { id email } } }");
  const developerId = developers.nodes.find((d: Json) => d.email === DEMO.developerEmail).id;
  const { createApp } = await admin.data("mutation($input: CreateAppInput!) { createApp(input: $input) { consumerKey consumerSecret } }", {
    input: { developerId, name: "Step-up client", apiProductIds: [createApiProduct.id], callbackUrls: [DEMO.callbackUrl] },
  });
  app = createApp;
  passwordUser = await newUser("stepup-pwd");
  scaUser = await newUser("stepup-sca");
  await enrolPasskey(server, scaUser.username);
});

afterAll(async () => {
  await server?.close();
});

describe("requiredAcr urn:tollgate:sca", () => {
  it("refuses a password-only token: 401, exactly the RFC 9470 challenge, the RFC 6750 JSON error", async () => {
    const token = await passwordToken();
    expect((await call("stepup-open", token)).status).toBe(200);
    const answer = await call("stepup-sca", token);
    const body = await expectOAuthError(answer, 401, "insufficient_user_authentication");
    expect(answer.headers.get("www-authenticate")).toBe(SCA_CHALLENGE);
    expect(body.error_description).toBe("the user's authentication is not strong enough; this API requires strong customer authentication");
  });

  it("accepts a token of a password and a passkey (SCA); it meets a password requirement too", async () => {
    const token = await scaToken();
    expect((await call("stepup-sca", token)).status).toBe(200);
    expect((await call("stepup-pwd", token)).status).toBe(200);
    expect((await call("stepup-sca-fresh", token)).status).toBe(200);
  });

  it("a client credentials token (no user authentication) is refused with the same acr_values", async () => {
    const answer = await call("stepup-sca", (await tokenRequest(server.url, TOKEN_ENDPOINT, app, { grant_type: "client_credentials" })).body.access_token);
    await expectOAuthError(answer, 401, "insufficient_user_authentication");
    expect(answer.headers.get("www-authenticate")).toMatch(/error="insufficient_user_authentication", error_description="this access token carries no user authentication; [^"]*", acr_values="urn:tollgate:sca", DPoP realm="tollgate", algs="PS256 ES256 EdDSA"$/);
  });
});

describe("requiredAcr urn:tollgate:pwd", () => {
  it("accepts a password-only token", async () => {
    expect((await call("stepup-pwd", await passwordToken())).status).toBe(200);
  });
});

describe("maxAgeSeconds", () => {
  it("accepts a recent sign-in, then refuses the same token once its auth_time is older than the API's max age: max_age, no acr_values", async () => {
    const token = await passwordToken();
    expect((await call("stepup-fresh", token)).status).toBe(200);
    await admin.data(UPDATE_API, { id: apiIds["stepup-fresh"], input: { maxAgeSeconds: 1 } });
    // The sign-in happened before the token was issued: 1.1 s from now it is older than 1 s.
    await sleep(1_100);
    const answer = await call("stepup-fresh", token);
    const body = await expectOAuthError(answer, 401, "insufficient_user_authentication");
    expect(body.error_description).toBe("the user's authentication is too old; this API requires a sign-in within the last 1 second");
    expect(answer.headers.get("www-authenticate")).toBe(
      `Bearer realm="tollgate", error="insufficient_user_authentication", error_description="${body.error_description}", max_age="1", DPoP realm="tollgate", algs="PS256 ES256 EdDSA"`,
    );
    // A longer max age takes the same token again at once.
    await admin.data(UPDATE_API, { id: apiIds["stepup-fresh"], input: { maxAgeSeconds: 3600 } });
    expect((await call("stepup-fresh", token)).status).toBe(200);
  });

  it("with an acr too: an SCA token too old is refused with acr_values and max_age", async () => {
    const token = await scaToken();
    await admin.data(UPDATE_API, { id: apiIds["stepup-sca-fresh"], input: { maxAgeSeconds: 1 } });
    await sleep(1_100);
    const answer = await call("stepup-sca-fresh", token);
    await expectOAuthError(answer, 401, "insufficient_user_authentication");
    expect(answer.headers.get("www-authenticate")).toMatch(
      /^Bearer realm="tollgate", error="insufficient_user_authentication", error_description="the user's authentication is too old; [^"]*", acr_values="urn:tollgate:sca", max_age="1", DPoP realm="tollgate", algs="PS256 ES256 EdDSA"$/,
    );
  });
});
