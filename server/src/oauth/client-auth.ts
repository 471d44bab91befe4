/**
 * Client authentication on the token endpoint: HTTP Basic with the consumer key and
 * consumer secret (RFC 6749 §2.3.1, RFC 7617).
 */
import { findClientByConsumerKey, type ClientRecord } from "../apps/repository.js";
import type { Db } from "../db/client.js";
import { InvalidClient } from "./errors.js";
import { isCleanText } from "./form.js";
import { hashSecret, secretMatches } from "./secrets.js";

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

/**
 * Authenticates the client of a token request from its `Authorization` header.
 * The secret is checked (constant time) before the app and credential status, so only a
 * caller holding the secret learns that a credential is revoked.
 * @param now - current time, for a rotated credential's expiry.
 * @throws InvalidClient (401, `WWW-Authenticate: Basic`) when the header is missing or
 *   malformed, the key is unknown, the secret is wrong, or the app or credential is revoked or expired.
 */
export async function authenticateClient(db: Db, authorization: string | undefined, realm: string, now: Date): Promise<Client> {
  const credentials = parseBasicCredentials(authorization);
  if (!credentials || !isCleanText(credentials.id) || !isCleanText(credentials.secret)) {
    throw new InvalidClient(
      authorization ? "malformed HTTP Basic credentials" : "client authentication required: HTTP Basic with the consumer key and secret",
      realm,
    );
  }
  const record = await findClientByConsumerKey(db, credentials.id);
  const matches = secretMatches(credentials.secret, record?.consumerSecretHash ?? UNKNOWN_CLIENT_HASH);
  if (!record || !matches) throw new InvalidClient("invalid consumer key or secret", realm);
  if (record.appStatus !== "approved") throw new InvalidClient("the app is revoked", realm);
  if (record.credentialStatus !== "approved" || (record.credentialExpiresAt !== null && record.credentialExpiresAt <= now)) {
    throw new InvalidClient("the credential is revoked or expired", realm);
  }
  const { consumerSecretHash: _, ...client } = record;
  return client;
}
