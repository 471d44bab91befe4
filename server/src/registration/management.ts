/**
 * The members of an update request (RFC 7592 §2.2) that are not client metadata: what the server
 * issued, which the client echoes back from its last client information response.
 *
 * RFC 7592 §2.2: the request MUST carry `client_id`, equal to the client's; it MUST NOT carry
 * `registration_access_token`, `registration_client_uri`, `client_secret_expires_at` or
 * `client_id_issued_at`; a `client_secret` it carries MUST be the issued one (the client never
 * chooses its secret). Because the same section asks the client to send "all client metadata
 * fields as returned", clients commonly send the whole last response back: these members are
 * therefore accepted when their value is exactly the one issued (or null), and refused when it
 * differs, so that a client never believes it changed one of them.
 */
import { isJsonObject } from "../kernel/strict-json.js";
import { invalidClientMetadata } from "./errors.js";
import { issuedSecretMatches } from "./credentials.js";
import { absent, ownMember } from "./values.js";

/** What the server issued to a registered client, as stored. */
export interface IssuedMembers {
  clientId: string;
  /** Seconds since the epoch. */
  clientIdIssuedAt: number;
  registrationClientUri: string;
  /** SHA-256 hex of the registration access token (credentials.ts). */
  registrationAccessTokenHash: string;
  /** SHA-256 hex of the client secret; undefined when the client has none. */
  clientSecretHash?: string;
}

/**
 * Checks the server-issued members of an update request body (RFC 7592 §2.2) against what was
 * issued; the metadata members are left to client-metadata.ts.
 *
 * @param body - the parsed JSON body (any JSON value).
 * @throws RegistrationError `invalid_client_metadata`: not a JSON object; `client_id` missing or
 *   not the client's; `registration_access_token` or `client_secret` present and not the issued
 *   one (compared by hash in constant time); `registration_client_uri`, `client_id_issued_at` or
 *   `client_secret_expires_at` present and not the issued value (`client_secret_expires_at` is 0
 *   for a client with a secret and must be absent for one without).
 */
export function checkIssuedMembers(body: unknown, issued: IssuedMembers): void {
  if (!isJsonObject(body)) throw invalidClientMetadata("the request body must be a JSON object of client metadata (RFC 7591 section 2)");
  const clientId = ownMember(body, "client_id");
  if (absent(clientId)) throw invalidClientMetadata("an update must carry the client's client_id (RFC 7592 section 2.2)");
  if (clientId !== issued.clientId) throw invalidClientMetadata("client_id is not this client's (RFC 7592 section 2.2)");
  const mismatch = (name: string) => invalidClientMetadata(`${name} is not the value this server issued: leave it out (RFC 7592 section 2.2)`);
  const token = ownMember(body, "registration_access_token");
  if (!absent(token) && !(typeof token === "string" && issuedSecretMatches(token, issued.registrationAccessTokenHash))) throw mismatch("registration_access_token");
  const uri = ownMember(body, "registration_client_uri");
  if (!absent(uri) && uri !== issued.registrationClientUri) throw mismatch("registration_client_uri");
  const issuedAt = ownMember(body, "client_id_issued_at");
  if (!absent(issuedAt) && issuedAt !== issued.clientIdIssuedAt) throw mismatch("client_id_issued_at");
  const expiresAt = ownMember(body, "client_secret_expires_at");
  if (!absent(expiresAt) && !(expiresAt === 0 && issued.clientSecretHash !== undefined)) throw mismatch("client_secret_expires_at");
  const secret = ownMember(body, "client_secret");
  if (!absent(secret) && !(typeof secret === "string" && issuedSecretMatches(secret, issued.clientSecretHash))) {
    throw invalidClientMetadata("client_secret is not the issued secret: a client cannot choose its secret (RFC 7592 section 2.2)");
  }
}
