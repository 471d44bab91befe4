/**
 * Subject identifiers (OpenID Connect Core 1.0 §8): what `sub` an app is told for a user. A
 * `public` app gets the user's own id, the same for every app; a `pairwise` app gets an
 * identifier of its sector alone (§8.1), so that two TPPs cannot correlate one PSU by `sub`:
 * the HMAC-SHA-256, under the server's secret salt, of the sector and the user's id.
 */
import { createHmac } from "node:crypto";

/** `public` or `pairwise` (OpenID Connect Discovery `subject_types_supported`). */
export type SubjectType = "public" | "pairwise";

/** What decides an app's subject identifiers. */
export interface SubjectClient {
  subjectType: SubjectType;
  /** OpenID Connect Registration §2 `sector_identifier_uri`; null: the sector is the callback URLs' host. */
  sectorIdentifierUri: string | null;
  /** The registered redirect URIs, in a stable order. */
  callbackUrls: readonly string[];
}

/**
 * The sector of a pairwise app (§8.1): the host of its `sector_identifier_uri`, or else of its
 * redirect URIs (registration and the admin API make a pairwise app without one keep them on
 * one host; otherwise the first in order counts).
 */
export function sectorOf(client: SubjectClient): string {
  const uri = client.sectorIdentifierUri ?? client.callbackUrls[0];
  return uri === undefined ? "" : new URL(uri).host;
}

/** The `sub` of user `userId` for `client`. */
export type Subjects = (client: SubjectClient, userId: string) => string;

/**
 * The subjects under `salt` (32 secret random bytes, the same on every instance): a public
 * app's `sub` is `userId`; a pairwise app's the base64url HMAC-SHA-256 under `salt` of its
 * sector, a line feed and `userId` (43 characters).
 */
export function subjects(salt: Buffer): Subjects {
  return (client, userId) => (client.subjectType === "public" ? userId : createHmac("sha256", salt).update(`${sectorOf(client)}\n${userId}`).digest("base64url"));
}
