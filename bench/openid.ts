/**
 * The OpenID Connect code exchange of `npm run bench` (scenario `code-openid`) and of its
 * instruction count (bench/callgrind.ts), the same against Tollgate and the oidc-provider
 * peer: authorization codes for `scope=openid` with a `nonce` and PKCE (S256), made through
 * each server's authorization endpoint before a run, then each exchanged once at its token
 * endpoint (RFC 6749 §4.1.3 with the `code_verifier`, RFC 7636 §4.5, client_secret_basic),
 * every answer carrying a signed ID token (OpenID Connect Core §3.1.3.3).
 *
 * A code is had as a relying party has it: a browser (server/test/support/flow.ts Browser,
 * a cookie jar) GETs the authorization endpoint and ends at the callback with the code, the
 * fastest honest way (codes are single-use, and cannot be made during a run without taking
 * the CPU from the exchanges measured). At ours, alice signs in with her password and passkey
 * and consents at the first code (the interaction JSON API, flow.ts obtainCode); Tollgate
 * then remembers the sign-in (the browser's session cookie) and the consent to `openid`,
 * which needs no strong customer authentication, so every further code is one GET answered
 * with a redirect to the callback. At the peer (bench/peers/oidc-provider-openid.ts) every
 * code is asked for by a browser of its own, through a sign-in and consent the peer answers
 * itself (bench/peers/user-flow.ts), three redirects: so each code has a grant of its own, as
 * many users' codes would (its in-memory adapter goes over every live token of a grant at
 * each write of one, so one grant for all codes would slow it down as a run went on), and
 * concurrent interactions do not share the one interaction cookie a browser has.
 *
 * A code lives 60 s at both servers (ours: CODE_LIFETIME_SECONDS; oidc-provider's default
 * `ttl.AuthorizationCode`), and ours makes about a hundred a second on this 2-core machine
 * (the authorization endpoint runs through Express and Prisma), so a run cannot exchange a
 * run's worth of codes at thousands per second: each run exchanges a set number of codes
 * (BENCH_CODES, default 2,000; its warm-up the share of them its seconds are of
 * BENCH_DURATION), and its req/s are those exchanges over the time to the last answer
 * (bench/support.ts `Target.amount`).
 * Env: BENCH_CODES (codes exchanged per measured run, default 2000).
 */
import { randomBytes } from "node:crypto";
import { DEMO } from "../server/src/demo/seed.js";
import { CODE_LIFETIME_SECONDS } from "../server/src/oauth/authorize.js";
import { authorizeParams, Browser, formBody, obtainCode, pkcePair } from "../server/test/support/flow.js";
import { codeFromRedirects, connections, duration, eachOnce, enrolDemoPasskey, formPost, PEER_OIDC_CLIENT, type Client, type Target } from "./support.js";

/** Codes exchanged by a measured run (BENCH_CODES). */
const CODES_PER_RUN = Number(process.env.BENCH_CODES ?? 2000);
/** Authorization requests sent at once while codes are made (after the first, which may sign in). */
const CODE_CONCURRENCY = 8;
/** Seconds a code must still have to live when its run starts, at the least. */
const CODE_AGE_MARGIN_SECONDS = 10;
/** The scope of the codes: OpenID Connect alone, which needs no strong customer authentication, so the sign-in is reused. */
const SCOPE = "openid";

/** What the code exchange needs of a server. */
export interface CodeServer {
  tokenEndpoint: string;
  /** The client the codes are issued to, authenticating with HTTP Basic. */
  client: Client;
  /**
   * A new code for an authorization request of the client with scope `openid` and `extra`
   * (nonce, PKCE), through the authorization endpoint (see the top of this file).
   */
  authorize(extra: Record<string, string>): Promise<string>;
}

/**
 * Tollgate at `baseUrl` as the demo strict app uses it (PKCE required, the rfc6749 token
 * response profile, ID tokens signed PS256, its default): alice signs in with her password
 * and passkey (support.ts enrolDemoPasskey) and consents at the first code, and the
 * browser's session then gets every further code at once.
 */
export async function tollgateCodes(baseUrl: string): Promise<CodeServer> {
  await enrolDemoPasskey(baseUrl);
  let browser: Browser | undefined;
  return {
    tokenEndpoint: `${baseUrl}/oauth2/v1/token`,
    client: DEMO.strictApp,
    async authorize(extra) {
      const result = await obtainCode(baseUrl, { client: DEMO.strictApp, scope: SCOPE, browser, extra });
      browser = result.browser;
      return result.code;
    },
  };
}

/**
 * The oidc-provider OpenID peer at `issuer` (bench/peers/oidc-provider-openid.ts) as its
 * client PEER_OIDC_CLIENT uses it: every code asked for by a new browser, through an
 * interaction the peer answers itself (see above).
 */
export async function oidcProviderCodes(issuer: string): Promise<CodeServer> {
  const metadata = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<string, string>;
  const authorization = (extra: Record<string, string>) => formBody(authorizeParams(PEER_OIDC_CLIENT, { scope: SCOPE, ...extra }) as Record<string, string>);
  return {
    tokenEndpoint: metadata.token_endpoint!,
    client: PEER_OIDC_CLIENT,
    authorize: (extra) => codeFromRedirects(new Browser(issuer), `${metadata.authorization_endpoint!}?${authorization(extra)}`),
  };
}

/** The exchange of one code: the form of the token request (its client authenticates in the header). */
function exchange(code: string, verifier: string): string {
  return formBody({ grant_type: "authorization_code", code, redirect_uri: DEMO.callbackUrl, code_verifier: verifier });
}

/**
 * `count` new codes of `server`, each for a request with its own nonce and PKCE pair, as
 * exchange forms, in the order they were made: the first alone (it may sign in), the rest
 * {@link CODE_CONCURRENCY} at a time.
 * @throws when making them took so long that the first would have less than
 *   {@link CODE_AGE_MARGIN_SECONDS} to live.
 */
async function makeCodes(server: CodeServer, count: number): Promise<string[]> {
  const started = performance.now();
  const one = async () => {
    const pkce = pkcePair();
    const code = await server.authorize({ nonce: randomBytes(16).toString("base64url"), code_challenge: pkce.challenge, code_challenge_method: "S256" });
    return exchange(code, pkce.verifier);
  };
  const forms = [await one()];
  let asked = forms.length;
  await Promise.all(
    Array.from({ length: CODE_CONCURRENCY }, async () => {
      while (asked < count) {
        asked++;
        forms.push(await one());
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  if (seconds > CODE_LIFETIME_SECONDS - CODE_AGE_MARGIN_SECONDS) {
    throw new Error(`making ${count} codes at ${server.tokenEndpoint} took ${Math.round(seconds)} s: the first would have less than ${CODE_AGE_MARGIN_SECONDS} s of its ${CODE_LIFETIME_SECONDS} s left at the start; lower BENCH_CODES`);
  }
  return forms;
}

/**
 * A target exchanging `count` new codes of `server` (made now, see the top of this file),
 * each once, as a run of `amount` `count` requests; the probe exchanges one more, and
 * `spare` more are made for the requests autocannon prepares and never sends (one per
 * connection it opens). Should a run still want more, it sends a spent code (a non-2xx).
 */
export async function codeExchangeTarget(server: CodeServer, count: number, spare: number): Promise<Target> {
  const forms = await makeCodes(server, count + spare + 1);
  const request = formPost(server.tokenEndpoint, server.client, "");
  const spent = { body: forms[0]! };
  return { ...eachOnce(request, forms.map((body) => ({ body })), { make: () => spent, note: "the rest of this run sends a spent code" }).target, amount: count };
}

/**
 * The codes a run of `seconds` exchanges in `npm run bench`: BENCH_CODES for a measured run
 * (BENCH_DURATION), the same share of them as its seconds for a shorter one (the warm-up),
 * and at least one per connection.
 */
export function codesForRun(seconds: number): number {
  return Math.max(connections, Math.ceil(CODES_PER_RUN * Math.min(1, seconds / duration)));
}
