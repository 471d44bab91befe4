/**
 * The API gateway: `{base_url}/<api_name>/<rest>` is checked (access token, its sender
 * constraint, API products, scopes) and forwarded to the API's upstream as
 * `<upstream_url>/<rest>`, without the caller's `Authorization`, `DPoP` and cookies, with
 * the caller's identity in `X-Client-Id`, `X-App-Name`, `X-Scopes` and, for user tokens,
 * `X-User-Id`, a DPoP-bound call's key thumbprint in `X-DPoP-JKT`, a PSD2 consent's approved
 * authorization details in `X-Authorization-Details` (base64url JSON; only details the PSU
 * approved in a consent, never those a client asserted itself), and where the call
 * came from in `Forwarded` and `X-Forwarded-*`, and the gateway in `Via` (gateway/forward.ts).
 * Calls with a PSD2 consent's token are held to it (gateway/consent-check.ts). A 401 offers
 * both schemes the gateway takes: `WWW-Authenticate: Bearer …, DPoP realm="…", algs="…"`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { BearerError, InvalidRequest, MethodNotAllowed, UnknownPath } from "../kernel/errors.js";
import { presentedAccessToken } from "../oauth/bearer.js";
import type { DpopSettings } from "../oauth/dpop-request.js";
import { findPresentedToken } from "../oauth/tokens.js";
import { isJwt } from "../oauth/access-token-jwt.js";
import type { Stores } from "../stores/index.js";
import type { Metrics } from "../kernel/metrics.js";
import { checkAccess } from "./access.js";
import { checkConsent } from "./consent-check.js";
import { createForwarder } from "./forward.js";
import { checkSender, DPOP_CHALLENGE } from "./sender.js";
import { contextOf } from "../kernel/request-context.js";
import { inSpan } from "../kernel/spans.js";
import { inUpstreamSpan } from "./upstream-span.js";

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** A `_method` query parameter, which Rails, Laravel and Symfony upstreams execute as the method (percent-encoded spellings too). */
const METHOD_OVERRIDE_PARAMETER = /[?&](_|%5f)(m|%6d)(e|%65)(t|%74)(h|%68)(o|%6f)(d|%64)(=|&|$)/i;

/**
 * Splits the request target `/<api>/<rest>?q` into the API name and the path to forward.
 * @returns `rest` starts with "/", runs of slashes made one, the query kept as sent.
 * @throws InvalidRequest (400) for a `_method` query parameter, malformed percent-encoding, an encoded slash or a
 *   backslash in a segment, and for a dot segment (RFC 3986 §3.3), percent-encoded or not,
 *   also with `;` parameters: servlet containers such as Tomcat remove those before they
 *   resolve dot segments, so `..;x` is `..` to a Java upstream.
 */
export function splitPath(url: string): { name: string; rest: string } {
  const query = url.indexOf("?");
  const path = query < 0 ? url : url.slice(0, query);
  const segments = path.split("/");
  for (const s of segments) {
    let decoded = s;
    try {
      if (s.includes("%")) decoded = decodeURIComponent(s);
    } catch {
      throw new InvalidRequest("malformed percent-encoding in path");
    }
    const semicolon = decoded.indexOf(";");
    const bare = semicolon < 0 ? decoded : decoded.slice(0, semicolon);
    if (bare === "." || bare === ".." || decoded.includes("/") || decoded.includes("\\")) {
      throw new InvalidRequest("dot segments (also with ;parameters) and encoded slashes are not allowed in gateway paths");
    }
  }
  if (query >= 0 && METHOD_OVERRIDE_PARAMETER.test(url.slice(query))) throw new InvalidRequest("a method override (_method) is not accepted: send the method itself");
  const name = segments[1] ?? "";
  // Runs of slashes become one: a forwarded path starting "//" would read as a network-path
  // reference (another host) to many upstreams.
  const rest = ("/" + segments.slice(2).join("/")).replace(/\/{2,}/g, "/") + (query < 0 ? "" : url.slice(query));
  return { name, rest };
}

/** Gateway settings. */
export interface GatewayOptions {
  realm: string;
  /** TRUST_PROXY_HOPS: reverse proxies whose forwarding fields are trusted (gateway/forward.ts). */
  trustedHops: number;
  /** The public base URL: with a call's path, the `htu` its DPoP proof must name. */
  baseUrl: string;
  dpop: DpopSettings;
  /** Upstream latency per API; undefined: nothing counted. */
  metrics?: Metrics;
  /** How long an upstream may take to start its answer, and then between two pieces of it, milliseconds (UPSTREAM_TIMEOUT_MS). */
  upstreamTimeoutMs: number;
  /** Checks a JWT access token offline (oauth/access-token-jwt.ts `accessTokenVerifier`): true when it passes. */
  verifyJwt(value: string, now: Date): Promise<boolean>;
}

/** Builds the gateway's handler (http/dispatch.ts: every path not served by Tollgate itself). */
export function gateway(stores: Pick<Stores, "catalog" | "tokens" | "clients" | "psd2Consents" | "consentAccess" | "audit">, options: GatewayOptions) {
  const { realm, baseUrl, dpop } = options;
  const forward = createForwarder(options.upstreamTimeoutMs, options.trustedHops, options.metrics);

  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // On the gateway's own answers (its errors) too; forward.ts sets it on the upstream's.
    res.setHeader("X-Content-Type-Options", "nosniff");
    const { name, rest } = splitPath(req.url ?? "/");
    if (name === "") throw new UnknownPath("no API named in the path");
    const api = await stores.catalog.apiRoute(name);
    if (!api) throw new UnknownPath(`no API named "${name}"`);
    // A registered API only: a name the caller made up never becomes a label or an audit key.
    const request = contextOf(req);
    if (request) request.api = api.name;
    if (!METHODS.includes(req.method ?? "")) throw new MethodNotAllowed(METHODS);
    if (request) request.route = `/${api.name}/{path}`;
    const { token, checked } = await inSpan("gateway access check", async () => {
      const presented = presentedAccessToken(req.headers.authorization, realm);
      const now = new Date();
      // A JWT access token (RFC 9068) is checked offline first, as any resource server checks it; then, as an opaque
      // token, by its row, through the token cache: so a revocation before its exp holds here too.
      const offline = !isJwt(presented.token) || (await options.verifyJwt(presented.token, now));
      const found = offline ? await findPresentedToken(stores, presented.token, now) : undefined;
      // Found means the value proved a stored token: its client is registered (even when the token is no longer active).
      if (request && found) request.clientId = found.clientId;
      // An active token's sender constraint is checked before its scopes; any error about a token presented as DPoP has a DPoP challenge.
      const challenge = found?.active
        ? await checkSender(presented, found, req, baseUrl, dpop, realm, now)
        : presented.scheme === "DPoP"
          ? DPOP_CHALLENGE
          : undefined;
      checkAccess(found, api, options, now, challenge);
      const checked = api.consentCheck === "none" ? {} : await checkConsent(req, api, rest, found, { consents: stores.psd2Consents, consentAccess: stores.consentAccess, audit: stores.audit, realm, now, dpop: challenge });
      return { token: found, checked };
    }, { "tollgate.api": api.name }).catch((error: unknown) => {
      // The gateway takes Bearer and DPoP tokens: a 401 names both schemes (RFC 9449 §7.1).
      throw error instanceof BearerError ? error.withDpopOffered(DPOP_CHALLENGE) : error;
    });

    // The caller's identity; any copy the caller sent, also of X-User-Id, is dropped so it cannot be spoofed.
    const identity = {
      "x-client-id": token.clientId,
      // Percent-encoded UTF-8 outside printable ASCII, and % itself, so the upstream can decode it unambiguously.
      "x-app-name": token.appName.toWellFormed().replace(/[^\x20-\x24\x26-\x7e]/gu, encodeURIComponent),
      "x-scopes": token.scopes.join(" "),
      "x-user-id": token.userId ?? undefined,
      "x-dpop-jkt": token.jkt ?? undefined,
      // Only a PSD2 consent's details, as the PSU approved them, so that the upstream shows only what the PSU authorized;
      // details a client asserted itself (client credentials: no consent, no PSU) are never forwarded as if approved.
      "x-authorization-details": token.consent?.consentId ? Buffer.from(token.consent.authorizationDetails).toString("base64url") : undefined,
      // The proof is the gateway's to check, not the upstream's.
      dpop: undefined,
    };
    // A payment's answer waits until what became of it is recorded (checked.settle, gateway/consent-check.ts).
    inUpstreamSpan(req, res, api, rest, () => forward(req, res, api, rest, identity, checked.body, checked.settle));
  };
}
