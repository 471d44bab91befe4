/**
 * Admin use cases of the catalog: API products and APIs. Each runs in one transaction with
 * its audit event (common.ts); the gateway sees the change at once (the catalog cache is
 * emptied by every catalog write).
 */
import type { Database } from "../../stores/index.js";
import type { ApiChanges, ApiProductChanges, ApiProductRecord, ApiRecord } from "../../stores/products.js";
import { auditedChange, type Audited } from "./common.js";

/**
 * Creates an API product granting the APIs `apiIds`; fields left out take their defaults.
 * @throws Conflict when the name is taken, UnknownReference for an unknown API id.
 */
export function createApiProduct(db: Database, o: ApiProductChanges & { name: string } & Audited): Promise<ApiProductRecord> {
  const { audit, ...product } = o;
  return auditedChange(db, audit, (stores) => stores.products.createProduct(product));
}

/**
 * Changes an API product; undefined keeps a field, `apiIds` replaces its APIs.
 * @throws NotFound, Conflict when the name is taken, UnknownReference for an unknown API id.
 */
export function updateApiProduct(db: Database, o: { id: string } & ApiProductChanges & Audited): Promise<ApiProductRecord> {
  const { id, audit, ...changes } = o;
  return auditedChange(db, audit, (stores) => stores.products.updateProduct(id, changes));
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
