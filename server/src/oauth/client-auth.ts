/**
 * Client authentication on the token, revocation and introspection endpoints (RFC 6749
 * §2.3.1): HTTP Basic with the consumer key and consumer secret (`client_secret_basic`,
 * RFC 7617), or `client_id` and `client_secret` in the form body (`client_secret_post`),
 * as the app allows.
 */
import type { ClientRecord, ClientStore } from "../stores/clients.js";
import type { ClientAuthMethod } from "../kernel/auth-methods.js";
import { InvalidClient, InvalidRequest } from "../kernel/errors.js";
import { type FormParams } from "./form.js";
import { isCleanText } from "../kernel/text.js";
import { hashMatches, hashSecret } from "../kernel/secrets.js";

/** An authenticated client: its record without the secret hash. */
export type Client = Omit<ClientRecord, "consumerSecretHash">;

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

/** The client id a request presents (Basic first, else the form's `client_id`), for the audit log; "" when none. */
export function presentedClientId(authorization: string | undefined, params: FormParams): string {
  return parseBasicCredentials(authorization)?.id ?? params.client_id ?? "";
}

/**
 * Reads the credentials of a request and the method it uses. An `Authorization` header of
 * another scheme (e.g. Bearer) is not client authentication.
 * @throws InvalidRequest when the request has both an `Authorization` header and a
 *   `client_secret` (RFC 6749 §2.3: a client "MUST NOT use more than one authentication
 *   method in each request").
 * @throws InvalidClient when it has no credentials, malformed Basic credentials, or a
 *   `client_secret` without `client_id`.
 */
function presentedCredentials(authorization: string | undefined, params: FormParams, realm: string): { method: ClientAuthMethod; id: string; secret: string } {
  if (params.client_secret !== undefined) {
    if (authorization) {
      throw new InvalidRequest("use one client authentication method per request: HTTP Basic or client_secret in the body, not both (RFC 6749 section 2.3)");
    }
    if (params.client_id === undefined) throw new InvalidClient("client_secret in the body needs client_id (client_secret_post)", realm);
    return { method: "client_secret_post", id: params.client_id, secret: params.client_secret };
  }
  if (!authorization || !/^Basic(?: |$)/i.test(authorization)) {
    throw new InvalidClient("client authentication required: HTTP Basic (client_secret_basic) or client_id and client_secret in the body (client_secret_post)", realm);
  }
  const basic = parseBasicCredentials(authorization);
  if (!basic || !isCleanText(basic.id) || !isCleanText(basic.secret)) throw new InvalidClient("malformed HTTP Basic credentials", realm);
  return { method: "client_secret_basic", ...basic };
}

/**
 * The client whose consumer key and secret these are. A fresh catalog cache entry with
 * this secret answers at once (the hot path). Otherwise the stored secret hash is read from
 * the database and compared in constant time, and only a match loads the client. So a
 * failed attempt costs one indexed read and one comparison whether the key exists or not,
 * cached or not: its timing does not tell which client ids exist.
 * @returns undefined when the key is unknown or the secret wrong.
 */
async function verifiedClient(clients: ClientStore, id: string, secret: string): Promise<ClientRecord | undefined> {
  const presented = hashSecret(secret);
  const cached = await clients.cachedByConsumerKey(id);
  if (cached && hashMatches(presented, cached.consumerSecretHash)) return cached;
  if (!hashMatches(presented, (await clients.consumerSecretHash(id)) ?? UNKNOWN_CLIENT_HASH)) return undefined;
  const record = await clients.byConsumerKey(id);
  return record && hashMatches(presented, record.consumerSecretHash) ? record : undefined;
}

/**
 * Authenticates the client of a token, revocation or introspection request. The secret is
 * checked before the method and the app and credential status, so only a caller holding
 * the secret learns that the app does not allow the method or that a credential is revoked.
 * @param authorization - the `Authorization` header.
 * @param params - the form body (`client_id`, `client_secret` for `client_secret_post`).
 * @param now - current time, for a rotated credential's expiry.
 * @throws InvalidRequest (400) when the request uses two methods.
 * @throws InvalidClient (401, `WWW-Authenticate: Basic`, also for body credentials: an
 *   HTTP 401 always carries a challenge, RFC 9110 §15.5.2) when credentials are missing or
 *   malformed, the key is unknown, the secret is wrong, the app does not allow the method,
 *   or the app or credential is revoked or expired.
 */
export async function authenticateClient(clients: ClientStore, authorization: string | undefined, params: FormParams, realm: string, now: Date): Promise<Client> {
  const { method, id, secret } = presentedCredentials(authorization, params, realm);
  const record = await verifiedClient(clients, id, secret);
  if (!record) throw new InvalidClient("invalid consumer key or secret", realm);
  if (!record.tokenEndpointAuthMethods.includes(method)) throw new InvalidClient(`this client may not authenticate with ${method}`, realm);
  if (record.appStatus !== "approved") throw new InvalidClient("the app is revoked", realm);
  if (record.credentialStatus !== "approved" || (record.credentialExpiresAt !== null && record.credentialExpiresAt <= now)) {
    throw new InvalidClient("the credential is revoked or expired", realm);
  }
  const { consumerSecretHash: _, ...client } = record;
  return client;
}
