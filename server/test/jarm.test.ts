/**
 * Signed authorization responses: JWT Secured Authorization Response Mode for OAuth 2.0
 * (JARM) as FAPI 2.0 Message Signing §5.4 asks for it, checked by a strict third-party
 * client, oauth4webapi's `validateJwtAuthResponse`, against a real server: the code of a
 * FAPI 2.0 flow (PAR, private_key_jwt, DPoP) and every error after the redirect URI is known
 * come back as one signed `response` parameter. Nothing is mocked.
 */
import * as oauth from "oauth4webapi";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { createHash } from "node:crypto";
import { AUTHORIZATION_RESPONSE_LIFETIME_SECONDS, FORM_POST_PATH } from "../src/oauth/authorization-response.js";
import { FAPI_CLIENT_ID, demoClientKey } from "./support/fapi.js";
import { Browser } from "./support/flow.js";
import { clientFor, clientOptions, prepareAuthorization, pushedAuthorizationUrl, runBrowserStep, startIssuerServer } from "./support/oauth4webapi.js";
import type { TestServer } from "./support/server.js";

let server: TestServer;
let as: oauth.AuthorizationServer;
const strict = clientFor(DEMO.strictApp);

beforeAll(async () => {
  let issuer: URL;
  ({ server, issuer } = await startIssuerServer());
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: "oauth2", ...clientOptions }));
});

afterAll(async () => {
  await server?.close();
});

/** The error a signed error response carries, as oauth4webapi reads it. */
async function signedError(callback: URL | URLSearchParams, state: string, client: oauth.Client = strict.client): Promise<URLSearchParams> {
  const err = await oauth.validateJwtAuthResponse(as, client, callback, state, clientOptions).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(oauth.AuthorizationResponseError);
  return (err as oauth.AuthorizationResponseError).cause;
}

/** Only `response` is sent: no `iss`, `state` or `code` beside it (JARM §2.3.1, RFC 9207 §2.4). */
function onlyResponse(callback: URL): void {
  expect([...callback.searchParams.keys()]).toEqual(["response"]);
}

describe("JARM §4 metadata", () => {
  it("advertises the response modes and the signing algorithms", () => {
    expect(as.response_modes_supported).toEqual(["query", "query.jwt", "jwt", "form_post.jwt"]);
    expect(as.authorization_signing_alg_values_supported).toEqual(["PS256", "ES256"]);
  });
});

describe("JARM §2.3.1 response_mode=jwt in a FAPI 2.0 flow (PAR, private_key_jwt, DPoP)", () => {
  const client: oauth.Client = { client_id: FAPI_CLIENT_ID, token_endpoint_auth_method: "private_key_jwt" };

  it("answers the code as a signed response oauth4webapi validates, and the code is exchanged for DPoP-bound tokens", async () => {
    const auth = oauth.PrivateKeyJwt({ key: await demoClientKey(), kid: "demo-fapi-2026" });
    const dpop = oauth.DPoP(client, await oauth.generateKeyPair("ES256"));
    const codeVerifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorizationUrl = await pushedAuthorizationUrl(as, client, auth, {
      redirect_uri: DEMO.callbackUrl,
      response_type: "code",
      response_mode: "jwt",
      scope: "aisp",
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: "S256",
    }, { DPoP: dpop });
    const callback = await runBrowserStep(authorizationUrl);

    onlyResponse(callback);
    const response = callback.searchParams.get("response")!;
    expect(decodeProtectedHeader(response)).toMatchObject({ alg: "PS256", typ: "JWT" });
    const claims = decodeJwt(response);
    expect(claims).toMatchObject({ iss: as.issuer, aud: FAPI_CLIENT_ID, state });
    expect(claims.exp! - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(AUTHORIZATION_RESPONSE_LIFETIME_SECONDS);
    expect(AUTHORIZATION_RESPONSE_LIFETIME_SECONDS).toBeLessThanOrEqual(600);

    const params = await oauth.validateJwtAuthResponse(as, client, callback, state, clientOptions);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, auth, params, DEMO.callbackUrl, codeVerifier, { DPoP: dpop, ...clientOptions }),
    );
    expect(tokens.token_type).toBe("dpop");
  });

  it("§2.3.1 an invalid_request found at the authorization endpoint (a fapi2 request not pushed) comes signed", async () => {
    const request = await prepareAuthorization(as, client, "aisp", { response_mode: "jwt" });
    const callback = await runBrowserStep(request.url);
    onlyResponse(callback);
    const error = await signedError(callback, request.state, client);
    expect(error.get("error")).toBe("invalid_request");
    expect(error.get("error_description")).toMatch(/must push its authorization request first/);
  });
});

describe("JARM §2.3.1 response_mode=query.jwt: the errors after the redirect URI is known come signed", () => {
  it("access_denied when the user denies", async () => {
    const request = await prepareAuthorization(as, strict.client, "aisp", { response_mode: "query.jwt", prompt: "consent" });
    const callback = await runBrowserStep(request.url, { approve: false });
    onlyResponse(callback);
    const error = await signedError(callback, request.state);
    expect(error.get("error")).toBe("access_denied");
    expect(error.get("error_description")).toBe("the user denied the request");
  });

  it("invalid_request for a bad parameter (prompt)", async () => {
    const request = await prepareAuthorization(as, strict.client, "aisp", { response_mode: "jwt", prompt: "sometimes" });
    const callback = await runBrowserStep(request.url);
    onlyResponse(callback);
    expect((await signedError(callback, request.state)).get("error")).toBe("invalid_request");
  });

  it("login_required for prompt=none without a session (OpenID Connect Core §3.1.2.6)", async () => {
    const request = await prepareAuthorization(as, strict.client, "aisp", { response_mode: "jwt", prompt: "none" });
    const callback = await runBrowserStep(request.url);
    onlyResponse(callback);
    expect((await signedError(callback, request.state)).get("error")).toBe("login_required");
  });

  it("§3 an app set to ES256 gets ES256 responses, verified with the published ES256 key", async () => {
    await server.prisma.app.updateMany({ where: { name: DEMO.strictApp.name }, data: { authorizationSignedResponseAlg: "ES256" } });
    try {
      // The catalog cache keeps the app for up to a second.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const es256: oauth.Client = { ...strict.client, authorization_signed_response_alg: "ES256" };
      const request = await prepareAuthorization(as, es256, "aisp", { response_mode: "jwt" });
      const callback = await runBrowserStep(request.url);
      expect(decodeProtectedHeader(callback.searchParams.get("response")!).alg).toBe("ES256");
      expect((await oauth.validateJwtAuthResponse(as, es256, callback, request.state, clientOptions)).get("code")).toBeTruthy();
    } finally {
      await server.prisma.app.updateMany({ where: { name: DEMO.strictApp.name }, data: { authorizationSignedResponseAlg: "PS256" } });
    }
  });
});

/**
 * The form a `form_post.jwt` page posts (JARM §2.3.3, Form Post Response Mode §2), after
 * checking the page: not cached, and a policy that runs its one script by hash only.
 */
async function postedForm(res: Response): Promise<{ action: string; fields: URLSearchParams }> {
  expect(res.status).toBe(200);
  expect(res.headers.get("cache-control")).toBe("no-cache, no-store");
  const html = await res.text();
  const script = /<script>([^<]*)<\/script>/.exec(html)![1]!;
  const hash = createHash("sha256").update(script).digest("base64");
  expect(res.headers.get("content-security-policy")).toBe(`default-src 'none'; script-src 'sha256-${hash}'; frame-ancestors 'none'; base-uri 'none'`);
  expect(html.match(/<form /g)).toHaveLength(1);
  const action = /<form method="post" action="([^"]*)">/.exec(html)![1]!.replaceAll("&amp;", "&");
  return { action, fields: new URLSearchParams([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m): [string, string] => [m[1]!, m[2]!])) };
}

describe("JARM §2.3.3 response_mode=form_post.jwt: the signed response is posted to the redirect URI by the browser", () => {
  it("the code: the consent step sends the browser to a page that posts only response, once; oauth4webapi validates it and the code is exchanged", async () => {
    const request = await prepareAuthorization(as, strict.client, "aisp", { response_mode: "form_post.jwt", prompt: "consent" });
    const browser = new Browser(request.url.origin);
    const next = await runBrowserStep(request.url, { browser });
    expect(next.href).toBe(new URL(FORM_POST_PATH, request.url.origin).href);
    const { action, fields } = await postedForm(await browser.fetch(FORM_POST_PATH));
    expect(action).toBe(DEMO.callbackUrl);
    expect([...fields.keys()]).toEqual(["response"]);
    const params = await oauth.validateJwtAuthResponse(as, strict.client, fields, request.state, clientOptions);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      strict.client,
      await oauth.authorizationCodeGrantRequest(as, strict.client, strict.auth, params, DEMO.callbackUrl, request.codeVerifier, clientOptions),
    );
    expect(tokens.access_token).toBeTruthy();

    // Posted once: loaded again, or by another browser, it is an error page of the SPA.
    for (const b of [browser, new Browser(request.url.origin)]) {
      const again = await b.fetch(FORM_POST_PATH);
      expect(again.status).toBe(302);
      expect(new URL(again.headers.get("location")!, request.url.origin).searchParams.get("error")).toBe("expired");
    }
  });

  it("an error found at the authorization endpoint is posted by the endpoint's own answer: a page, not a redirect", async () => {
    const request = await prepareAuthorization(as, strict.client, "aisp", { response_mode: "form_post.jwt", prompt: "sometimes" });
    const { action, fields } = await postedForm(await new Browser(request.url.origin).fetch(request.url.href));
    expect(action).toBe(DEMO.callbackUrl);
    const error = await signedError(fields, request.state);
    expect(error.get("error")).toBe("invalid_request");
  });
});

describe("response_mode values not served (OAuth 2.0 Multiple Response Type Encoding Practices §2.1)", () => {
  for (const mode of ["fragment", "form_post", "fragment.jwt"]) {
    it(`${mode} is invalid_request, answered in the query (no mode to sign it in)`, async () => {
      const request = await prepareAuthorization(as, strict.client, "aisp", { response_mode: mode });
      const start = await new Browser(request.url.origin).fetch(request.url.href);
      expect(start.status).toBe(302);
      const callback = new URL(start.headers.get("location")!);
      expect(callback.searchParams.has("response")).toBe(false);
      expect(callback.searchParams.get("error")).toBe("invalid_request");
      expect(callback.searchParams.get("iss")).toBe(as.issuer);
    });
  }
});

describe("response_mode=query (RFC 6749 §4.1.2, RFC 9207): unchanged", () => {
  it("answers code, state and iss in the query, as when left out", async () => {
    for (const extra of [{ response_mode: "query" }, {}]) {
      const request = await prepareAuthorization(as, strict.client, "aisp", extra);
      const callback = await runBrowserStep(request.url);
      expect(callback.searchParams.has("response")).toBe(false);
      expect(oauth.validateAuthResponse(as, strict.client, callback, request.state).get("code")).toBeTruthy();
    }
  });
});
