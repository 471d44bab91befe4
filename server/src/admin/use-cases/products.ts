/**
 * Admin use cases of the catalog: API products and APIs. Each runs in one transaction with
 * its audit event (common.ts); the gateway sees the change at once (the catalog cache is
 * emptied by every catalog write).
 */
import { NotFound } from "../../kernel/domain-errors.js";
import type { Database, Stores } from "../../stores/index.js";
import type { ApiChanges, ApiProductChanges, ApiProductRecord, ApiRecord, ScopeDescription } from "../../stores/products.js";
import { inputError } from "../validation.js";
import { auditedChange, type Audited } from "./common.js";
import { checkIdentityProvider } from "./identity-providers.js";

/** Descriptions of scopes for end users, given with a product's changes. */
interface Described {
  scopeDescriptions?: readonly ScopeDescription[];
}

/**
 * Creates an API product granting the APIs `apiIds`; fields left out take their defaults.
 * Each of its scopes needs a description for end users, existing or in `scopeDescriptions`.
 * @throws Conflict when the name is taken, UnknownReference for an unknown API id,
 *   BAD_USER_INPUT when a scope has no description or a description names no scope of the
 *   product, or for an unknown identity provider.
 */
export function createApiProduct(db: Database, o: ApiProductChanges & { name: string } & Described & Audited): Promise<ApiProductRecord> {
  const { audit, scopeDescriptions, ...product } = o;
  return auditedChange(db, audit, async (stores) => {
    await checkIdentityProvider(stores, product.identityProviderId);
    return describedScopes(stores, await stores.products.createProduct(product), scopeDescriptions);
  });
}

/**
 * Changes an API product; undefined keeps a field, `apiIds` replaces its APIs. When its
 * scopes or descriptions change, each of its scopes needs a description, as at creation.
 * @throws NotFound, Conflict when the name is taken, UnknownReference for an unknown API id, BAD_USER_INPUT as {@link createApiProduct}.
 */
export function updateApiProduct(db: Database, o: { id: string } & ApiProductChanges & Described & Audited): Promise<ApiProductRecord> {
  const { id, audit, scopeDescriptions, ...changes } = o;
  return auditedChange(db, audit, async (stores) => {
    await checkIdentityProvider(stores, changes.identityProviderId);
    const product = await stores.products.updateProduct(id, changes);
    return changes.scopes === undefined && scopeDescriptions === undefined ? product : describedScopes(stores, product, scopeDescriptions);
  });
}

/**
 * Sets `descriptions` and checks that every scope of `product` has one, in the caller's
 * transaction (a failed check rolls the product's change back). @returns the product.
 * @throws BAD_USER_INPUT naming the scopes without a description, or a description of no scope of the product.
 */
async function describedScopes(stores: Stores, product: ApiProductRecord, descriptions: readonly ScopeDescription[] = []): Promise<ApiProductRecord> {
  const stray = descriptions.find((d) => !product.scopes.includes(d.name));
  if (stray) throw inputError("scopeDescriptions", `"${stray.name}" is not a scope of this product`);
  await stores.products.describeScopes(descriptions);
  const described = await stores.products.describedScopes(product.scopes);
  const missing = product.scopes.filter((s) => !described.has(s));
  if (missing.length > 0) {
    throw inputError("scopeDescriptions", `${missing.map((s) => `"${s}"`).join(", ")} need${missing.length === 1 ? "s" : ""} a description for end users`);
  }
  return product;
}

/**
 * Sets the description end users see for a scope, for every product offering it. @returns the scope.
 * @throws NotFound when no product offers the scope.
 */
export function setScopeDescription(db: Database, o: ScopeDescription & Audited): Promise<ScopeDescription> {
  const { audit, ...scope } = o;
  return auditedChange(db, audit, async (stores) => {
    if (!(await stores.products.listScopes()).some((s) => s.name === scope.name)) throw new NotFound("no API product offers this scope");
    await stores.products.describeScopes([scope]);
    return scope;
  });
}

/** Deletes an API product: apps lose it from their credentials. @throws NotFound */
export function deleteApiProduct(db: Database, o: { id: string } & Audited): Promise<void> {
  return auditedChange(db, o.audit, (stores) => stores.products.deleteProduct(o.id));
}

/** Creates an API served at gateway path `/<name>/`. @throws Conflict when the name is taken. */
export function createApi(db: Database, o: ApiChanges & { name: string; upstreamUrl: string } & Audited): Promise<ApiRecord> {
  const { audit, ...api } = o;
  return auditedChange(db, audit, (stores) => stores.products.createApi(api));
}

/** Changes an API; undefined keeps a field. @throws NotFound, Conflict when the name is taken. */
export function updateApi(db: Database, o: { id: string } & ApiChanges & Audited): Promise<ApiRecord> {
  const { id, audit, ...changes } = o;
  return auditedChange(db, audit, (stores) => stores.products.updateApi(id, changes));
}

/** Deletes an API: its gateway path is gone. @throws NotFound */
export function deleteApi(db: Database, o: { id: string } & Audited): Promise<void> {
  return auditedChange(db, o.audit, (stores) => stores.products.deleteApi(o.id));
}
