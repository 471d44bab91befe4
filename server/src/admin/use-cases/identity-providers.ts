/**
 * Admin use cases of the bank's identity providers (federation/): their settings and the
 * client secret Tollgate authenticates with there, which is stored sealed for the provider's
 * id (federation/upstream.ts `sealClientSecret`) and never read back here. Each runs in one
 * transaction with its audit event (common.ts); the apps and API products that name a
 * provider are read through the catalog cache, which every write here empties.
 */
import { Conflict } from "../../kernel/domain-errors.js";
import type { Federation } from "../../federation/upstream.js";
import type { IdentityProviderRecord, IdentityProviderSettings, UpstreamClientAuth } from "../../stores/identity-providers.js";
import type { Database, Stores } from "../../stores/index.js";
import { inputError } from "../validation.js";
import { auditedChange, found, type Audited } from "./common.js";

/** What seals a provider's client secret. */
type Sealer = Pick<Federation, "sealClientSecret">;

/** An identity provider's settings as given: the client secret in clear, to be sealed. */
export type IdentityProviderInput = Omit<IdentityProviderSettings, "clientSecret"> & {
  /** The client secret of client_secret_basic, in clear; undefined when none is given. */
  clientSecret?: string;
};

/** The changes to an identity provider; undefined keeps a setting, a given `clientSecret` replaces the stored one. */
export type IdentityProviderChanges = Partial<IdentityProviderInput>;

const NOT_FOUND = "no identity provider with this id";
const SECRET_REFUSED = "private_key_jwt authenticates with Tollgate's own signing keys: give no client secret";
const SECRET_REQUIRED = "client_secret_basic needs the client secret the identity provider issued to Tollgate";

/** `scopes` with `openid` first, as every sign-in asks for it (OpenID Connect Core §3.1.2.1). */
export function withOpenId(scopes: readonly string[]): string[] {
  return ["openid", ...scopes.filter((s) => s !== "openid")];
}

/**
 * The Conflict of a name taken, in words naming it; any other error as it is.
 * @param name - the name asked for.
 */
function nameTaken(err: unknown, name: string | undefined): unknown {
  return err instanceof Conflict && name !== undefined ? new Conflict(`an identity provider named "${name}" already exists`) : err;
}

/**
 * Checks that an identity provider a setting names exists, inside the caller's transaction.
 * @param id - the id given; undefined (left out) and null (none) pass.
 * @throws BAD_USER_INPUT on `field` for an unknown id.
 */
export async function checkIdentityProvider(stores: Stores, id: string | null | undefined, field = "identityProviderId"): Promise<void> {
  if (typeof id === "string" && !(await stores.identityProviders.find(id))) throw inputError(field, NOT_FOUND);
}

/**
 * Adds an identity provider and, for client_secret_basic, its client secret sealed for its new
 * id, in one transaction with the audit event (whose subject is the new id).
 * @throws BAD_USER_INPUT for a secret with private_key_jwt or none with client_secret_basic;
 *   Conflict when the name is taken.
 */
export function createIdentityProvider(db: Database, federation: Sealer, o: IdentityProviderInput & Audited): Promise<IdentityProviderRecord> {
  const { audit, clientSecret, ...settings } = o;
  checkSecret(settings.clientAuthMethod, clientSecret !== undefined, false);
  return db.transaction(async (stores) => {
    let created: IdentityProviderRecord;
    try {
      created = await stores.identityProviders.create({ ...settings, scopes: withOpenId(settings.scopes), clientSecret: null });
    } catch (err) {
      throw nameTaken(err, settings.name);
    }
    const provider = clientSecret === undefined ? created : await stores.identityProviders.update(created.id, { clientSecret: federation.sealClientSecret(created.id, clientSecret) });
    await stores.audit.record({ ...audit, subject: provider.id });
    return provider;
  });
}

/**
 * Changes an identity provider; undefined keeps a setting. A given client secret replaces the
 * stored one; switching to private_key_jwt removes it; switching to client_secret_basic needs
 * one, given or stored. The scopes keep `openid`.
 * @throws NotFound; BAD_USER_INPUT for a secret with private_key_jwt, or client_secret_basic
 *   without one; Conflict when the new name is taken.
 */
export function updateIdentityProvider(db: Database, federation: Sealer, o: { id: string } & IdentityProviderChanges & Audited): Promise<IdentityProviderRecord> {
  const { id, audit, clientSecret, ...changes } = o;
  return auditedChange(db, audit, async (stores) => {
    const provider = await found(stores.identityProviders.find(id), NOT_FOUND);
    const method = changes.clientAuthMethod ?? provider.clientAuthMethod;
    checkSecret(method, clientSecret !== undefined, provider.clientSecret !== null);
    const given = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as Partial<IdentityProviderSettings>;
    // private_key_jwt keeps no secret; client_secret_basic keeps the stored one unless a new one is given.
    let secret: Pick<IdentityProviderSettings, "clientSecret"> | Record<string, never> = {};
    if (method === "private_key_jwt" && provider.clientSecret !== null) secret = { clientSecret: null };
    else if (method === "client_secret_basic" && clientSecret !== undefined) secret = { clientSecret: federation.sealClientSecret(id, clientSecret) };
    try {
      return await stores.identityProviders.update(id, { ...given, ...(changes.scopes ? { scopes: withOpenId(changes.scopes) } : {}), ...secret });
    } catch (err) {
      throw nameTaken(err, changes.name);
    }
  });
}

/**
 * Deletes an identity provider: its apps and API products fall back to Tollgate's own sign-in
 * (the column is ON DELETE SET NULL), the links of its PSUs to their users go.
 * @throws NotFound
 */
export function deleteIdentityProvider(db: Database, o: { id: string } & Audited): Promise<void> {
  return auditedChange(db, o.audit, (stores) => stores.identityProviders.delete(o.id));
}

/**
 * Checks the client secret against the authentication method it would be used with.
 * @param given - whether a new secret is given.
 * @param stored - whether one is stored (an update that keeps it).
 * @throws BAD_USER_INPUT on clientSecret: one given with private_key_jwt, none at all with client_secret_basic.
 */
function checkSecret(method: UpstreamClientAuth, given: boolean, stored: boolean): void {
  if (method === "private_key_jwt" && given) throw inputError("clientSecret", SECRET_REFUSED);
  if (method === "client_secret_basic" && !given && !stored) throw inputError("clientSecret", SECRET_REQUIRED);
}
