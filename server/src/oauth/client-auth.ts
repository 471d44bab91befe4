/**
 * Client authentication on the token, PAR, revocation and introspection endpoints:
 * HTTP Basic with the consumer key and consumer secret (`client_secret_basic`, RFC 6749
 * §2.3.1, RFC 7617), `client_id` and `client_secret` in the form body
 * (`client_secret_post`), a JWT signed with a key the app registered (`private_key_jwt`,
 * RFC 7523 §2.2, OIDC Core §9), or `client_id` with the request's TLS client certificate
 * (RFC 8705 §2): issued by a trusted CA to the name the app registered (`tls_client_auth`),
 * or registered itself (`self_signed_tls_client_auth`), as the app allows. A `fapi2` app may
 * use `private_key_jwt` or mutual TLS only (FAPI 2.0 Security Profile §5.3.2.1).
 *
 * A PSD2 TPP authenticated by its eIDAS certificate (RTS Art. 34) gets only the API products
 * its certificate's PSD2 roles allow (ETSI TS 119 495; certificates/roles.ts).
 */
import type { AddressPolicy } from "../kernel/addresses.js";
import type { ClientRecord, ClientStore } from "../stores/clients.js";
import type { ReplayStore } from "../stores/replays.js";
import { FAPI2_AUTH_METHODS, type ClientAuthMethod } from "../kernel/auth-methods.js";
import { matchesSelfSignedTlsClientAuth, matchesTlsClientAuth, type TlsClientAuthExpectation } from "../certificates/client-auth.js";
import { psd2QcStatement } from "../certificates/eidas.js";
import type { PresentedCertificate } from "../certificates/presented.js";
import { allowedProducts, type RoleProductMapping } from "../certificates/roles.js";
import { verifyCertificateChain, type TrustStore } from "../certificates/trust.js";
import { InvalidClient, InvalidRequest } from "../kernel/errors.js";
import { CLIENT_ASSERTION_TYPE, unverifiedAssertionIssuer, verifyClientAssertion } from "./client-assertion.js";
import { type FormParams } from "./form.js";
import { isCleanText } from "../kernel/text.js";
import { hashMatches, hashSecret } from "../kernel/secrets.js";

/** An authenticated client: its record without the secret hash. */
export type Client = Omit<ClientRecord, "consumerSecretHash">;

/** What client authentication needs besides the request. */
export interface ClientAuthContext {
  clients: ClientStore;
  /** Used client assertion `jti`s. */
  replays: ReplayStore;
  /** Realm of the `WWW-Authenticate: Basic` challenge of a 401. */
  realm: string;
  /** The issuer identifier: the one `aud` a client assertion may carry (FAPI 2.0 §5.3.2.1). */
  issuer: string;
  /** Current time, for a rotated credential's expiry and the assertion's claims. */
  now: Date;
  /** The TLS client certificate the request presented (RFC 8705); undefined when none. */
  certificate?: PresentedCertificate;
  /** What mutual-TLS client authentication checks certificates against. */
  mtls: MtlsSettings;
  /** Where a fetch of a client's `jwks_uri` may connect (kernel/addresses.ts). */
  tppAddresses: AddressPolicy;
}

/** The checks of mutual-TLS client authentication (RFC 8705 §2). */
export interface MtlsSettings {
  /** The CAs and CRLs of `tls_client_auth` certificates (TLS_CLIENT_CA, TLS_CLIENT_CRLS); undefined: none configured, so no `tls_client_auth`. */
  trust: TrustStore | undefined;
  /** PSD2 roles to the API products a TPP with them may be granted (TPP_ROLE_PRODUCTS). */
  roleProducts: RoleProductMapping;
}

/** The methods an app may use: those it registered, and for a `fapi2` app only `private_key_jwt` and mutual TLS among them. */
function allowedAuthMethods(client: Pick<ClientRecord, "securityProfile" | "tokenEndpointAuthMethods">): readonly ClientAuthMethod[] {
  return client.securityProfile === "fapi2" ? client.tokenEndpointAuthMethods.filter((m) => FAPI2_AUTH_METHODS.includes(m)) : client.tokenEndpointAuthMethods;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Hash compared against when the consumer key is unknown, so both paths cost the same. */
const UNKNOWN_CLIENT_HASH = hashSecret("unknown-client");

/**
 * Decodes an `Authorization: Basic` value into client id and secret. Both halves are
 * form-urlencoded before base64 (RFC 6749 §2.3.1), so they are form-decoded here.
 * @returns undefined when the header is absent, not Basic, or malformed.
 */
export function parseBasicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  if (!header) return undefined;
  const match = /^Basic +(\S+) *$/i.exec(header);
  if (!match || !BASE64.test(match[1]!) || match[1]!.length % 4 !== 0) return undefined;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon <= 0) return undefined;
  try {
    const formDecode = (s: string) => decodeURIComponent(s.replace(/\+/g, " "));
    return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

/** The credentials a request presents. */
type Credentials =
  | { method: "client_secret_basic" | "client_secret_post"; id: string; secret: string }
  | { method: "private_key_jwt"; id: string; assertion: string }
  | { method: "mtls"; id: string; presented: PresentedCertificate };

/**
 * Reads the credentials of a request and the method it uses. An `Authorization` header of
 * another scheme (e.g. Bearer or DPoP) is not client authentication.
 * @throws InvalidRequest when the request uses more than one method (RFC 6749 §2.3: a
 *   client "MUST NOT use more than one authentication method in each request").
 * @throws InvalidClient when it has no credentials, malformed Basic credentials, a
 *   `client_secret` without `client_id`, or a client assertion of another type or without
 *   a readable `iss` (RFC 7521 §4.2).
 */
function presentedCredentials(authorization: string | undefined, params: FormParams, realm: string, certificate: PresentedCertificate | undefined): Credentials {
  // Any Authorization header counts here: one beside body credentials is a second method, whatever its scheme.
  const header = authorization !== undefined && authorization !== "";
  const used = [header, params.client_secret !== undefined, params.client_assertion !== undefined || params.client_assertion_type !== undefined].filter(Boolean).length;
  if (used > 1) {
    throw new InvalidRequest("use one client authentication method per request: HTTP Basic, client_secret in the body, or a client assertion (RFC 6749 section 2.3)");
  }
  if (params.client_assertion !== undefined || params.client_assertion_type !== undefined) {
    if (params.client_assertion_type !== CLIENT_ASSERTION_TYPE) throw new InvalidClient(`client_assertion_type must be ${CLIENT_ASSERTION_TYPE}`, realm);
    const assertion = params.client_assertion;
    if (assertion === undefined) throw new InvalidClient("client_assertion is required with client_assertion_type", realm);
    const id = params.client_id ?? unverifiedAssertionIssuer(assertion);
    if (id === undefined || !isCleanText(id)) throw new InvalidClient("the client assertion names no client (iss)", realm);
    return { method: "private_key_jwt", id, assertion };
  }
  if (params.client_secret !== undefined) {
    if (params.client_id === undefined) throw new InvalidClient("client_secret in the body needs client_id (client_secret_post)", realm);
    return { method: "client_secret_post", id: params.client_id, secret: params.client_secret };
  }
  if (!header && certificate && params.client_id !== undefined) return { method: "mtls", id: params.client_id, presented: certificate };
  if (!authorization || !/^Basic(?: |$)/i.test(authorization)) {
    throw new InvalidClient(
      "client authentication required: HTTP Basic (client_secret_basic), client_id and client_secret in the body (client_secret_post), a client assertion (private_key_jwt), or a TLS client certificate",
      realm,
    );
  }
  const pair = parseBasicCredentials(authorization);
  if (!pair || !isCleanText(pair.id) || !isCleanText(pair.secret)) throw new InvalidClient("malformed HTTP Basic credentials", realm);
  return { method: "client_secret_basic", ...pair };
}

/**
 * The client whose consumer key and secret these are. A fresh catalog cache entry with
 * this secret answers at once (the hot path). Otherwise the stored secret hash is read from
 * the database and compared in constant time, and only a match loads the client. So a
 * failed attempt costs one indexed read and one comparison whether the key exists or not,
 * cached or not: its timing does not tell which client ids exist.
 * @returns `record` undefined when the key is unknown or the secret wrong; `registered`
 *   whether a client with the key exists (for the refusal audit only, never for the answer).
 */
async function verifiedClient(clients: ClientStore, id: string, secret: string): Promise<{ record: ClientRecord | undefined; registered: boolean }> {
  const presented = hashSecret(secret);
  const cached = await clients.cachedByConsumerKey(id);
  if (cached && hashMatches(presented, cached.consumerSecretHash)) return { record: cached, registered: true };
  const stored = await clients.consumerSecretHash(id);
  if (!hashMatches(presented, stored ?? UNKNOWN_CLIENT_HASH)) return { record: undefined, registered: stored !== undefined };
  const record = await clients.byConsumerKey(id);
  return { record: record && hashMatches(presented, record.consumerSecretHash) ? record : undefined, registered: record !== undefined };
}

/**
 * The app's record when `credentials` prove it: the secret, or a client assertion verified
 * against the app's keys (oauth/client-assertion.ts).
 * @returns `record` undefined when the key is unknown or the secret wrong; `registered` as {@link verifiedClient}.
 * @throws InvalidClient, naming the registered client, when a client assertion fails verification.
 */
async function provenClient(ctx: ClientAuthContext, credentials: Credentials): Promise<{ record: ClientRecord | undefined; registered: boolean }> {
  if (credentials.method === "mtls") return certifiedClient(ctx, credentials.id, credentials.presented);
  if (credentials.method !== "private_key_jwt") return verifiedClient(ctx.clients, credentials.id, credentials.secret);
  const record = await ctx.clients.byConsumerKey(credentials.id);
  if (!record) return { record: undefined, registered: false };
  try {
    await verifyClientAssertion(credentials.assertion, {
      clientId: record.clientId,
      keys: { jwks: record.jwks, jwksUri: record.jwksUri, addresses: ctx.tppAddresses },
      issuer: ctx.issuer,
      replays: ctx.replays,
      now: ctx.now,
      realm: ctx.realm,
    });
  } catch (err) {
    throw err instanceof InvalidClient && err.registeredClientId === undefined ? new InvalidClient(err.message, ctx.realm, record.clientId) : err;
  }
  return { record, registered: true };
}

/**
 * The app whose consumer key is `id` when the certificate proves it (RFC 8705 §2): for an app
 * allowing `tls_client_auth`, a certificate trusted under `ctx.mtls.trust` (chain, dates, CRLs)
 * carrying the registered subject DN or SAN; else, for one allowing `self_signed_tls_client_auth`,
 * a certificate the app registered in its JWK Set.
 * @returns `record` undefined when the key is unknown; `registered` as {@link verifiedClient}.
 * @throws InvalidClient, naming the client, when the certificate does not prove it.
 */
async function certifiedClient(ctx: ClientAuthContext, id: string, presented: PresentedCertificate): Promise<{ record: ClientRecord | undefined; registered: boolean }> {
  const record = await ctx.clients.byConsumerKey(id);
  if (!record) return { record: undefined, registered: false };
  const methods = allowedAuthMethods(record);
  const { certificate } = presented;
  if (methods.includes("tls_client_auth") && record.tlsClientAuth) {
    if (!ctx.mtls.trust) throw new InvalidClient("tls_client_auth is not configured on this server (TLS_CLIENT_CA)", ctx.realm, record.clientId);
    const verdict = await verifyCertificateChain(certificate, ctx.mtls.trust, { now: ctx.now, presented: presented.intermediates });
    if (!verdict.trusted) throw new InvalidClient(`the client certificate is not trusted (${verdict.reason})`, ctx.realm, record.clientId);
    if (!matchesTlsClientAuth(certificate, record.tlsClientAuth as TlsClientAuthExpectation)) {
      throw new InvalidClient(`the client certificate does not carry the registered ${record.tlsClientAuth.parameter}`, ctx.realm, record.clientId);
    }
    return { record, registered: true };
  }
  if (methods.includes("self_signed_tls_client_auth")) {
    if (!matchesSelfSignedTlsClientAuth(certificate, { jwks: record.jwks ?? undefined })) throw new InvalidClient("the client certificate is not one the client registered", ctx.realm, record.clientId);
    return { record, registered: true };
  }
  throw new InvalidClient("this client may not authenticate with a TLS client certificate", ctx.realm, record.clientId);
}

/**
 * The client as a PSD2 TPP authenticated by its eIDAS certificate may act: with only the API
 * products the certificate's PSD2 roles allow (ETSI TS 119 495, RTS Art. 34). A certificate
 * without a PSD2 statement leaves the client as it is.
 */
function withinRoles(client: Client, certificate: PresentedCertificate, mapping: RoleProductMapping): Client {
  const psd2 = psd2QcStatement(certificate.certificate);
  if (!psd2) return client;
  const allowed = new Set(allowedProducts(psd2.roles, mapping));
  return { ...client, products: client.products.filter((p) => allowed.has(p.name)) };
}

/**
 * Authenticates the client of a token, PAR, revocation or introspection request. The
 * secret or assertion is checked before the method and the app and credential status, so
 * only a caller holding the secret or key learns that the app does not allow the method or
 * that a credential is revoked.
 * @param authorization - the `Authorization` header.
 * @param params - the form body (`client_id`, `client_secret` for `client_secret_post`,
 *   `client_assertion_type` and `client_assertion` for `private_key_jwt`).
 * @throws InvalidRequest (400) when the request uses two methods.
 * @throws InvalidClient (401, `WWW-Authenticate: Basic`, also for body credentials: an
 *   HTTP 401 always carries a challenge, RFC 9110 §15.5.2) when credentials are missing or
 *   malformed, the key is unknown, the secret or assertion is wrong, the app does not allow
 *   the method, or the app or credential is revoked or expired; its `registeredClientId`
 *   names the client when the key is registered.
 */
export async function authenticateClient(ctx: ClientAuthContext, authorization: string | undefined, params: FormParams): Promise<Client> {
  const { realm, now } = ctx;
  const credentials = presentedCredentials(authorization, params, realm, ctx.certificate);
  const { record, registered } = await provenClient(ctx, credentials);
  if (!record) throw new InvalidClient("invalid consumer key or secret", realm, registered ? credentials.id : undefined);
  const id = record.clientId;
  if (credentials.method !== "mtls" && !allowedAuthMethods(record).includes(credentials.method)) throw new InvalidClient(`this client may not authenticate with ${credentials.method}`, realm, id);
  if (record.appStatus !== "approved") throw new InvalidClient(record.appStatus === "pending" ? "the app awaits the bank's approval" : "the app is revoked", realm, id);
  if (record.credentialStatus !== "approved" || (record.credentialExpiresAt !== null && record.credentialExpiresAt <= now)) {
    throw new InvalidClient("the credential is revoked or expired", realm, id);
  }
  const { consumerSecretHash: _, ...client } = record;
  return credentials.method === "mtls" ? withinRoles(client, credentials.presented, ctx.mtls.roleProducts) : client;
}
