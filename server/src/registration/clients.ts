/**
 * Registered clients: dynamic registration (RFC 7591 §3) and the client configuration endpoint's
 * read, update and delete (RFC 7592 §2), over the stores. A registration becomes an app of its
 * organization's registrations developer, with one credential whose consumer key is the client id,
 * approved for the API products the TPP's PSD2 roles allow; each change is one transaction with
 * its audit event.
 *
 * The organization is the directory's: found by the statement's issuer and `org_id`, created on
 * the first registration (its display name the statement's `org_name`), never matched by name, so
 * a TPP cannot join another's organization by naming it, nor one an admin created. Each statement
 * registers one client: its `jti` is recorded as used, in the registration's transaction, until the
 * statement could no longer be accepted (decisions.md "Dynamic client registration").
 */
import { matchesTlsClientAuth } from "../certificates/client-auth.js";
import { organizationIdentifier, psd2QcStatement } from "../certificates/eidas.js";
import type { PresentedCertificate } from "../certificates/presented.js";
import type { RoleProductMapping } from "../certificates/roles.js";
import { NAME_MAX_LENGTH } from "../kernel/limits.js";
import { nonceRequired } from "../oauth/authorize.js";
import type { RequestIds } from "../kernel/request-context.js";
import { Conflict } from "../kernel/domain-errors.js";
import { hashSecret, newSecret } from "../kernel/secrets.js";
import type { AppRecord, RegisteredSoftware } from "../stores/apps.js";
import type { Database, Stores } from "../stores/index.js";
import { clientInformationResponse, registrationClientUri, type RegisteredClientStatus } from "./client-information.js";
import { issuedSecretMatches, newClientId, newClientSecret, newRegistrationAccessToken } from "./credentials.js";
import { invalidClientMetadata, invalidSoftwareStatement } from "./errors.js";
import { registrationGrant } from "./products.js";
import { resolveRegistration, resolveUpdate, type RegistrationContext, type StoredRegistration } from "./registration.js";
import type { RegisteredMetadata } from "./resolve.js";
import { statementAcceptedUntil, type SoftwareStatement } from "./software-statement.js";

/** A registration as App.registration stores it (JSON). Times in seconds since the epoch, except `statementVerifiedAt` (ISO 8601). */
export interface StoredAppRegistration {
  metadata: RegisteredMetadata;
  softwareStatement: string;
  statementVerifiedAt: string;
  clientIdIssuedAt: number;
  statementIssuedAt: number;
  statementExpiresAt?: number;
  organizationId?: string;
  organizationName?: string;
  /** The PSD2 roles that count: the statement's, within the registering certificate's. */
  roles: string[];
  /** The registering eIDAS certificate, when one was presented. */
  certificate?: { x5tS256: string; organizationIdentifier?: string; ncaName?: string; ncaId?: string };
}

/** What registering needs besides the request. */
export interface RegistrationSettings extends Omit<RegistrationContext, "now"> {
  /** The registration endpoint's absolute URL. */
  endpointUrl: string;
  /** A new registration waits for an admin's approval (status pending). */
  requiresApproval: boolean;
  roleProducts: RoleProductMapping;
}

/** The ids of the request, for the audit events. */
interface Requested {
  now: Date;
  request: RequestIds | undefined;
}

/** A text fit for an app or organization name: at most `max` characters. */
const clipped = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/** The longest `org_id` an organization's name carries as it is; a longer one is replaced by a digest. */
const MAX_ORG_ID_IN_NAME = 40;

/**
 * The unique name of the organization a registration creates: its display name, clipped, and the
 * directory's `org_id` (or a digest of a long one), e.g. `Acme Fintech Ltd (0015800001041RHAAY)`.
 */
function organizationName(displayName: string, organizationId: string): string {
  const id = organizationId.length <= MAX_ORG_ID_IN_NAME ? organizationId : `#${hashSecret(organizationId).slice(0, 16)}`;
  return `${clipped(displayName, NAME_MAX_LENGTH - id.length - 3)} (${id})`;
}

/** The developer every registration of an organization belongs to: an address under .invalid (RFC 2606), never mailed, named by the organization's id. */
const registrationsDeveloper = (organizationId: string) => `registrations@${organizationId.toLowerCase()}.invalid`;

/**
 * The organization and developer a registration of `statement` belongs to (this file's header),
 * created on the organization's first registration.
 * @throws Conflict when another organization has its name, or another organization's developer its address.
 */
async function registrationsDeveloperOf(stores: Stores, statement: SoftwareStatement) {
  const directory = { issuer: statement.issuer, organizationId: statement.organizationId };
  const displayName = clipped(statement.organizationName ?? statement.organizationId, NAME_MAX_LENGTH);
  const organization =
    (await stores.organizations.findByDirectory(directory.issuer, directory.organizationId)) ??
    (await stores.organizations.create({ name: organizationName(displayName, directory.organizationId), displayName, directory }));
  const email = registrationsDeveloper(organization.id);
  const developer =
    (await stores.organizations.developersOf(organization.id)).find((d) => d.email === email) ??
    (await stores.organizations.createDeveloper({ organizationId: organization.id, email, firstName: "Registered", lastName: "clients" }));
  return { organization, developer };
}

/**
 * Records the statement's `jti` as used (stores/replays.ts, its own purpose), until the statement
 * could no longer be accepted.
 * @throws RegistrationError `invalid_software_statement` when it was used before.
 */
async function useStatement(stores: Stores, statement: SoftwareStatement, settings: RegistrationSettings, now: Date): Promise<void> {
  const key = hashSecret(`software-statement:${statement.issuer}:${statement.statementId}`);
  const until = new Date(statementAcceptedUntil(statement, settings.directory) * 1000);
  if (!(await stores.replays.firstUse(key, until, now))) {
    throw invalidSoftwareStatement("the software statement has already been used to register a client (jti): ask the directory for a new one");
  }
}

/**
 * The software a dynamically registered app holds while it is not revoked: its organization's
 * and its `software_id` (decisions.md "Dynamic client registration"); undefined for an app an admin created.
 */
export async function registeredSoftwareOf(stores: Stores, app: Pick<AppRecord, "registration" | "developerId">): Promise<RegisteredSoftware | undefined> {
  if (app.registration === null) return undefined;
  const { softwareId } = (JSON.parse(app.registration) as StoredAppRegistration).metadata;
  const developer = await stores.organizations.findDeveloper(app.developerId);
  return developer && softwareId ? { organizationId: developer.organizationId, softwareId } : undefined;
}

/** The `error_description` of a second registration of a software (at most 200 characters, kernel/errors.ts). */
export const REGISTERED_ALREADY =
  "this organization has registered this software_id already: update that client at its registration_client_uri with its registration access token (RFC 7592), or delete it there first";

/**
 * Refuses a second registration of a software by one organization (decisions.md "Dynamic client
 * registration"): the registered client changes itself at its client configuration endpoint
 * (RFC 7592 §2.2) with its registration access token, or deletes itself there (§2.3) to
 * register anew. The database's unique index on the organization and software id holds it for
 * two registrations at once: the second's insert fails with Conflict, and its retry
 * ({@link withOneRetry}) finds the first here.
 * @throws RegistrationError `invalid_client_metadata` when the organization has registered `softwareId`.
 */
async function refuseSecondRegistration(stores: Stores, software: RegisteredSoftware): Promise<void> {
  const registered = await stores.apps.findBySoftware(software);
  if (!registered) return;
  throw invalidClientMetadata(REGISTERED_ALREADY);
}

/**
 * Runs `fn` in one transaction, and once more when it fails with Conflict: two first
 * registrations of one organization at once both try to create it, and the second finds it;
 * two registrations of one software at once both try to store it, and the second is refused.
 */
async function withOneRetry<T>(db: Database, fn: (stores: Stores) => Promise<T>): Promise<T> {
  try {
    return await db.transaction(fn);
  } catch (error) {
    if (!(error instanceof Conflict)) throw error;
    return db.transaction(fn);
  }
}

/** The roles and products a registration gets, checked against the certificate it was made with. */
function grantOf(statement: SoftwareStatement, metadata: RegisteredMetadata, certificate: PresentedCertificate | undefined, mapping: RoleProductMapping) {
  if (metadata.tlsClientAuth && certificate && !matchesTlsClientAuth(certificate.certificate, metadata.tlsClientAuth)) {
    throw invalidClientMetadata(`the TLS client certificate of this request does not carry the registered ${metadata.tlsClientAuth.parameter}`);
  }
  const psd2 = certificate ? psd2QcStatement(certificate.certificate) : null;
  const grant = registrationGrant(statement.roles, psd2?.roles, mapping);
  if (grant.products.length === 0) {
    throw invalidSoftwareStatement("the software statement's PSD2 roles, within the certificate's, allow no API product of this bank");
  }
  return { grant, psd2 };
}

/** The app settings of a registration's metadata: its method, keys and certificate name, ID token, introspection and authorization response algorithms, subjects, post-logout redirect URIs, nonce requirement, RFC 6749 responses and PKCE. */
function appSettingsOf(metadata: RegisteredMetadata) {
  return {
    tokenEndpointAuthMethods: [metadata.tokenEndpointAuthMethod],
    securityProfile: metadata.securityProfile,
    tokenResponseProfile: "rfc6749",
    requirePkce: true,
    jwks: metadata.jwks ? JSON.stringify(metadata.jwks) : null,
    jwksUri: metadata.jwksUri ?? null,
    tlsClientAuth: metadata.tlsClientAuth ?? null,
    idTokenSignedResponseAlg: metadata.idTokenSignedResponseAlg,
    introspectionSignedResponseAlg: metadata.introspectionSignedResponseAlg,
    authorizationSignedResponseAlg: metadata.authorizationSignedResponseAlg,
    subjectType: metadata.subjectType,
    sectorIdentifierUri: metadata.sectorIdentifierUri ?? null,
    postLogoutRedirectUris: metadata.postLogoutRedirectUris,
    requireNonce: metadata.requireNonce,
    requireSignedRequestObject: metadata.requireSignedRequestObject,
  };
}

/** The API product ids of `names` in the catalog (names it does not have are left out). */
async function productIds(stores: Stores, names: readonly string[]): Promise<Map<string, string>> {
  return new Map((await stores.products.listProducts()).filter((p) => names.includes(p.name)).map((p) => [p.name, p.id]));
}

/**
 * Registers a client (RFC 7591 §3.1) from a request body: verifies and resolves it
 * (registration.ts), gives it the products its roles allow, and creates its app, credential
 * and audit event `registration.created`.
 * @param certificate - the TLS client certificate the request presented, already trusted by the caller.
 * @returns the client information response (RFC 7591 §3.2.1), with the client secret (when issued), the
 *   registration access token and its `status` (`pending`, with `status_description`, while it waits for
 *   the bank's approval; client-information.ts).
 * @throws RegistrationError (400) as registration.ts says; `invalid_client_metadata` for a
 *   tls_client_auth name the certificate does not carry, or a software (`software_id`) the
 *   organization has registered already; `invalid_software_statement` when the roles allow no product.
 */
export async function registerClient(db: Database, body: unknown, settings: RegistrationSettings, certificate: PresentedCertificate | undefined, o: Requested): Promise<Record<string, unknown>> {
  const resolved = await resolveRegistration(body, { ...settings, now: o.now });
  const { metadata, statement } = resolved;
  const { grant, psd2 } = grantOf(statement, metadata, certificate, settings.roleProducts);
  const clientId = newClientId();
  const secret = metadata.tokenEndpointAuthMethod === "client_secret_basic" ? newClientSecret() : undefined;
  const token = newRegistrationAccessToken();
  const clientIdIssuedAt = Math.floor(o.now.getTime() / 1000);
  const identity = certificate?.certificate;
  const stored: StoredAppRegistration = {
    metadata,
    softwareStatement: resolved.softwareStatement,
    statementVerifiedAt: resolved.statementVerifiedAt.toISOString(),
    clientIdIssuedAt,
    statementIssuedAt: statement.issuedAt,
    statementExpiresAt: statement.expiresAt,
    organizationId: statement.organizationId,
    organizationName: statement.organizationName,
    roles: grant.roles,
    certificate: identity && { x5tS256: identity.x5tS256, organizationIdentifier: organizationIdentifier(identity) ?? undefined, ncaName: psd2?.ncaName, ncaId: psd2?.ncaId },
  };
  return withOneRetry(db, async (stores) => {
    await useStatement(stores, statement, settings, o.now);
    const { organization, developer } = await registrationsDeveloperOf(stores, statement);
    const software = { organizationId: organization.id, softwareId: statement.softwareId };
    await refuseSecondRegistration(stores, software);
    const products = await productIds(stores, grant.products);
    const { app } = await stores.apps.create({
      ...appSettingsOf(metadata),
      developerId: developer.id,
      name: `${clipped(metadata.clientName ?? statement.softwareId, NAME_MAX_LENGTH - 11)} (${clientId.slice(0, 8)})`,
      callbackUrls: metadata.redirectUris,
      credential: { consumerKey: clientId, consumerSecretHash: secret?.hash ?? hashSecret(newSecret()), products: [...products.values()].map((apiProductId) => ({ apiProductId })) },
      status: settings.requiresApproval ? "pending" : "approved",
      registered: { registration: JSON.stringify(stored), registrationAccessTokenHash: token.hash },
      software,
    });
    await stores.audit.record({
      type: "registration.created",
      actor: clientId,
      subject: app.id,
      details: {
        software_id: statement.softwareId,
        organization: organization.name,
        roles: grant.roles,
        products: [...products.keys()],
        token_endpoint_auth_method: metadata.tokenEndpointAuthMethod,
        profile: metadata.securityProfile,
        status: app.status,
        ...(identity ? { "x5t#S256": identity.x5tS256 } : {}),
      },
      request: o.request,
    });
    return clientInformationResponse({
      clientId,
      clientIdIssuedAt,
      registrationClientUri: registrationClientUri(settings.endpointUrl, clientId),
      metadata,
      softwareStatement: resolved.softwareStatement,
      clientSecret: secret?.value,
      registrationAccessToken: token.value,
      status: clientStatus(app.status),
    });
  });
}

/** An app's status as a client information response names it (client-information.ts); an unknown one reads as revoked. */
const clientStatus = (status: string): RegisteredClientStatus => (status === "approved" || status === "pending" ? status : "revoked");

/** A registered client as its configuration endpoint works on it. */
interface RegisteredClient {
  app: AppRecord;
  credentialId: string;
  stored: StoredAppRegistration;
  issued: StoredRegistration;
}

/**
 * The registered client `clientId` when `token` is its registration access token (RFC 7592 §3),
 * compared in constant time; undefined otherwise (unknown client, no registration, deleted, wrong token).
 */
export async function registeredClient(stores: Stores, clientId: string, token: string, endpointUrl: string): Promise<RegisteredClient | undefined> {
  const client = await stores.clients.byConsumerKey(clientId);
  const app = client && (await stores.apps.find(client.appId));
  const hash = app?.registration ? await stores.apps.registrationAccessTokenHash(app.id) : undefined;
  if (!issuedSecretMatches(token, hash) || !app?.registration || !client) return undefined;
  const parsed = JSON.parse(app.registration) as StoredAppRegistration;
  // The app's columns are what its ID tokens and introspection responses are signed with, what
  // `sub` they carry, where the logout endpoint may send the browser and whether a nonce is
  // required (as the authorization endpoint decides it: always for fapi2), and a registration
  // stored before id_token_signed_response_alg, introspection_signed_response_alg,
  // authorization_signed_response_alg, subject_type,
  // sector_identifier_uri, post_logout_redirect_uris, require_nonce and
  // require_signed_request_object were registered has none in its JSON: the columns are answered.
  const metadata: RegisteredMetadata = {
    ...parsed.metadata,
    idTokenSignedResponseAlg: app.idTokenSignedResponseAlg,
    introspectionSignedResponseAlg: app.introspectionSignedResponseAlg,
    authorizationSignedResponseAlg: app.authorizationSignedResponseAlg,
    subjectType: app.subjectType,
    sectorIdentifierUri: app.sectorIdentifierUri ?? undefined,
    postLogoutRedirectUris: app.postLogoutRedirectUris,
    requireNonce: nonceRequired(app),
    requireSignedRequestObject: app.requireSignedRequestObject,
  };
  const stored: StoredAppRegistration = { ...parsed, metadata };
  const secretIssued = stored.metadata.tokenEndpointAuthMethod === "client_secret_basic";
  return {
    app,
    credentialId: client.credentialId,
    stored,
    issued: {
      clientId,
      clientIdIssuedAt: stored.clientIdIssuedAt,
      registrationClientUri: registrationClientUri(endpointUrl, clientId),
      registrationAccessTokenHash: hash!,
      clientSecretHash: secretIssued ? client.consumerSecretHash : undefined,
      metadata: stored.metadata,
      softwareStatement: stored.softwareStatement,
      statementVerifiedAt: new Date(stored.statementVerifiedAt),
    },
  };
}

/** The client information response of a registered client (RFC 7592 §2.1): no secret, since only their hashes are kept. */
export function readClient(client: RegisteredClient): Record<string, unknown> {
  const { issued } = client;
  return clientInformationResponse({ ...issued, metadata: client.stored.metadata, softwareStatement: client.stored.softwareStatement, status: clientStatus(client.app.status) });
}

/**
 * Updates a registered client (RFC 7592 §2.2): resolves the new metadata (registration.ts
 * `resolveUpdate`), replaces its settings, redirect URIs and products, and rotates its
 * registration access token, returned in the answer; audited as `registration.updated`.
 * @throws RegistrationError as `resolveUpdate`; `invalid_client_metadata` for a change to or from
 *   client_secret_basic (register the client anew) or a tls_client_auth name the certificate does not carry;
 *   `invalid_software_statement` for a new statement of another organization (`org_id`) or used before (its `jti`).
 */
export async function updateClient(db: Database, client: RegisteredClient, body: unknown, settings: RegistrationSettings, certificate: PresentedCertificate | undefined, o: Requested): Promise<Record<string, unknown>> {
  const update = await resolveUpdate(body, client.issued, { ...settings, now: o.now });
  if (update.clientSecret === "issue" || update.clientSecret === "drop") {
    throw invalidClientMetadata("token_endpoint_auth_method cannot change to or from client_secret_basic: register the client anew");
  }
  if (client.stored.organizationId !== undefined && update.statement.organizationId !== client.stored.organizationId) {
    throw invalidSoftwareStatement("the software statement is for another organization (org_id): register the client anew");
  }
  const { grant } = grantOf(update.statement, update.metadata, certificate, settings.roleProducts);
  const token = newRegistrationAccessToken();
  const stored: StoredAppRegistration = {
    ...client.stored,
    metadata: update.metadata,
    softwareStatement: update.softwareStatement,
    statementVerifiedAt: update.statementVerifiedAt.toISOString(),
    statementIssuedAt: update.statement.issuedAt,
    statementExpiresAt: update.statement.expiresAt,
    organizationName: update.statement.organizationName,
    roles: grant.roles,
  };
  return db.transaction(async (stores) => {
    if (update.softwareStatement !== client.stored.softwareStatement) await useStatement(stores, update.statement, settings, o.now);
    const { app } = client;
    await stores.apps.update(app.id, { ...appSettingsOf(update.metadata), registered: { registration: JSON.stringify(stored), registrationAccessTokenHash: token.hash } });
    const before = await stores.apps.callbackUrls(app.id);
    for (const url of before.filter((u) => !update.metadata.redirectUris.includes(u))) await stores.apps.removeCallbackUrl(app.id, url);
    for (const url of update.metadata.redirectUris.filter((u) => !before.includes(u))) await stores.apps.addCallbackUrl(app.id, url);
    const allowed = await productIds(stores, grant.products);
    for (const p of await stores.apps.productsOfCredential(client.credentialId)) {
      if (!allowed.has(p.product.name)) await stores.apps.setProductStatus(client.credentialId, p.product.id, "revoked");
    }
    for (const id of allowed.values()) await stores.apps.setProductStatus(client.credentialId, id, "approved");
    await stores.audit.record({ type: "registration.updated", actor: client.issued.clientId, subject: app.id, details: { roles: grant.roles, products: [...allowed.keys()] }, request: o.request });
    return clientInformationResponse({
      ...client.issued,
      metadata: update.metadata,
      softwareStatement: update.softwareStatement,
      registrationAccessToken: token.value,
      status: clientStatus(app.status),
    });
  });
}

/**
 * Deletes a registered client (RFC 7592 §2.3): revokes its app, credential and tokens, voids its
 * registration access token and frees its software id (the organization may register the software
 * again); audited as `registration.deleted`.
 */
export async function deleteClient(db: Database, client: RegisteredClient, o: Requested): Promise<void> {
  await db.transaction(async (stores) => {
    const { app } = client;
    await stores.apps.update(app.id, { status: "revoked", registered: { registration: app.registration!, registrationAccessTokenHash: hashSecret(newSecret()) }, software: null });
    await stores.apps.updateCredential(client.credentialId, { status: "revoked" });
    await stores.tokens.revokeTokensOf({ appId: app.id }, { at: o.now, by: `client:${client.issued.clientId}` });
    await stores.audit.record({ type: "registration.deleted", actor: client.issued.clientId, subject: app.id, request: o.request });
  });
}
