/**
 * The two decisions of dynamic client registration that take a request body, without storage:
 * what a registration request (RFC 7591 §3.1) registers, and what an update request (RFC 7592
 * §2.2) changes. Their one outbound call is the fetch of a `sector_identifier_uri`
 * (sector-identifier.ts), made last, once everything else about the request holds. The caller
 * (the HTTP endpoint) authenticates the update's registration access token, issues the
 * credentials (credentials.ts), stores the result, audits it, and answers with
 * client-information.ts's response.
 */
import type { SecurityProfile } from "../stores/clients.js";
import { parseClientMetadata } from "./client-metadata.js";
import { invalidSoftwareStatement, RegistrationError } from "./errors.js";
import { checkIssuedMembers, type IssuedMembers } from "./management.js";
import { resolveMetadata, type RegisteredMetadata } from "./resolve.js";
import { checkSectorIdentifier, type SectorFetch } from "./sector-identifier.js";
import { verifySoftwareStatement, type Directory, type SoftwareStatement } from "./software-statement.js";

/** What a registration or an update is decided against. */
export interface RegistrationContext {
  /** The trusted directory (software-statement.ts `createDirectory`). */
  directory: Directory;
  /** The security profile the bank requires of registrations: every registration and update is held to it. */
  profile: SecurityProfile;
  /** The time of the request. */
  now: Date;
  /** How a `sector_identifier_uri` is fetched (sector-identifier.ts `sectorFetch`, under the address policy of TPP URLs). */
  fetchSector: SectorFetch;
}

/** A registration's decided content: what to store (with the issued credentials) and answer. */
export interface ResolvedRegistration {
  metadata: RegisteredMetadata;
  /** The verified statement's claims: roles (products.ts), organization, software id for the audit and console. */
  statement: SoftwareStatement;
  /** The statement as the client sent it: stored, returned in every client information response. */
  softwareStatement: string;
  /** When the statement was verified: stored, an update that keeps the statement re-verifies it at this time. */
  statementVerifiedAt: Date;
}

/**
 * Decides a registration request (RFC 7591 §3.1): parses the body (client-metadata.ts), verifies
 * its required software statement (software-statement.ts), resolves the metadata to register
 * under the statement and `ctx.profile` (resolve.ts), and checks its `sector_identifier_uri`, if
 * any, by fetching it (sector-identifier.ts).
 * @param body - the parsed JSON body.
 * @throws RegistrationError with any RFC 7591 §3.2.2 code, as those modules say; a request
 *   without `software_statement` gets `invalid_software_statement`.
 */
export async function resolveRegistration(body: unknown, ctx: RegistrationContext): Promise<ResolvedRegistration> {
  const requested = await parseClientMetadata(body);
  const statement = await verifySoftwareStatement(requested.softwareStatement, ctx.directory, ctx.now);
  const metadata = resolveMetadata(requested, statement, ctx.profile);
  if (metadata.sectorIdentifierUri !== undefined) await checkSectorIdentifier(metadata.sectorIdentifierUri, metadata.redirectUris, ctx.fetchSector);
  return {
    metadata,
    statement,
    softwareStatement: requested.softwareStatement!,
    statementVerifiedAt: ctx.now,
  };
}

/** Whether two lists of redirect URIs hold the same URIs, in any order. */
function sameUris(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(a);
  return set.size === new Set(b).size && b.every((uri) => set.has(uri));
}

/** A registered client, as stored: what was issued, the registered metadata and its statement. */
export interface StoredRegistration extends IssuedMembers {
  metadata: RegisteredMetadata;
  softwareStatement: string;
  statementVerifiedAt: Date;
}

/**
 * What to do with the client secret after an update: keep it, issue one (the client moved to
 * `client_secret_basic`, credentials.ts `newClientSecret`), drop it (it moved away), or nothing
 * (it has none and needs none).
 */
export type ClientSecretChange = "keep" | "issue" | "drop" | "none";

/** An update's decided content. */
export interface ResolvedUpdate extends ResolvedRegistration {
  clientSecret: ClientSecretChange;
}

/**
 * The statement an update is resolved under. RFC 7592 §2.2 treats an omitted member as a request
 * to delete it, and lets the server ignore that: a registration keeps its statement, so an update
 * that omits `software_statement` or sends the stored one again is held to the stored statement,
 * re-verified at the time it was first verified (the directory's keys and deny list as they are
 * now; its age as it was). A different statement is verified now and must be for the same software.
 */
async function statementOfUpdate(sent: string | undefined, stored: StoredRegistration, ctx: RegistrationContext): Promise<Omit<ResolvedRegistration, "metadata">> {
  if (sent === undefined || sent === stored.softwareStatement) {
    try {
      const statement = await verifySoftwareStatement(stored.softwareStatement, ctx.directory, stored.statementVerifiedAt);
      return { statement, softwareStatement: stored.softwareStatement, statementVerifiedAt: stored.statementVerifiedAt };
    } catch (error) {
      if (error instanceof RegistrationError && error.error === "invalid_software_statement") {
        throw invalidSoftwareStatement(`${error.message}; send a current software_statement with the update`);
      }
      throw error;
    }
  }
  const statement = await verifySoftwareStatement(sent, ctx.directory, ctx.now);
  if (statement.softwareId !== stored.metadata.softwareId) {
    throw invalidSoftwareStatement("the software statement is for another software (software_id): register that software as a new client");
  }
  return { statement, softwareStatement: sent, statementVerifiedAt: ctx.now };
}

/**
 * Decides an update request (RFC 7592 §2.2) of an authenticated client: checks the members the
 * server issued (management.ts), parses the body, takes the statement (the stored one unless a
 * new one for the same software is sent) and resolves the metadata anew under `ctx.profile`:
 * the new metadata replace the old, and members left out take their defaults. A
 * `sector_identifier_uri` is fetched again (sector-identifier.ts) when the update changes it or
 * the redirect URIs; an update that sends them back unchanged fetches nothing.
 * @param body - the parsed JSON body.
 * @throws RegistrationError as management.ts, client-metadata.ts, software-statement.ts and
 *   resolve.ts say; `invalid_software_statement` also for a statement of another software id, or a
 *   stored statement the directory no longer verifies.
 */
export async function resolveUpdate(body: unknown, stored: StoredRegistration, ctx: RegistrationContext): Promise<ResolvedUpdate> {
  checkIssuedMembers(body, stored);
  const requested = await parseClientMetadata(body);
  const taken = await statementOfUpdate(requested.softwareStatement, stored, ctx);
  const metadata = resolveMetadata(requested, taken.statement, ctx.profile);
  const sector = metadata.sectorIdentifierUri;
  if (sector !== undefined && (sector !== stored.metadata.sectorIdentifierUri || !sameUris(metadata.redirectUris, stored.metadata.redirectUris))) {
    await checkSectorIdentifier(sector, metadata.redirectUris, ctx.fetchSector);
  }
  const needsSecret = metadata.tokenEndpointAuthMethod === "client_secret_basic";
  const hasSecret = stored.clientSecretHash !== undefined;
  const clientSecret: ClientSecretChange = needsSecret ? (hasSecret ? "keep" : "issue") : hasSecret ? "drop" : "none";
  return { ...taken, metadata, clientSecret };
}
