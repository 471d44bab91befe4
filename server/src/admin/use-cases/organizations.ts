/**
 * Admin use cases of organizations and developers. Each runs in one transaction with its
 * audit event (common.ts).
 */
import { Conflict } from "../../kernel/domain-errors.js";
import type { Database } from "../../stores/index.js";
import type { DeveloperRecord, OrganizationRecord } from "../../stores/organizations.js";
import { auditedChange, type Audited } from "./common.js";

/** Creates an organization. @throws Conflict when the name is taken. */
export function createOrganization(db: Database, o: { name: string; displayName: string } & Audited): Promise<OrganizationRecord> {
  return auditedChange(db, o.audit, (stores) => stores.organizations.create({ name: o.name, displayName: o.displayName }));
}

/** Renames an organization; undefined keeps a field. @throws NotFound, Conflict when the name is taken. */
export function updateOrganization(db: Database, o: { id: string; name?: string; displayName?: string } & Audited): Promise<OrganizationRecord> {
  return auditedChange(db, o.audit, (stores) => stores.organizations.update(o.id, { name: o.name, displayName: o.displayName }));
}

/** Deletes an organization without developers. @throws NotFound, Conflict while it has developers. */
export function deleteOrganization(db: Database, o: { id: string } & Audited): Promise<void> {
  return auditedChange(db, o.audit, async (stores) => {
    if (!(await stores.organizations.delete(o.id))) throw new Conflict("the organization still has developers");
  });
}

/** Adds a developer to an organization. @throws UnknownReference for an unknown organization, Conflict when the email is taken. */
export function createDeveloper(db: Database, o: Omit<DeveloperRecord, "id" | "createdAt"> & Audited): Promise<DeveloperRecord> {
  const { audit, ...developer } = o;
  return auditedChange(db, audit, (stores) => stores.organizations.createDeveloper(developer));
}

/** Changes a developer's email or names; undefined keeps a field. @throws NotFound, Conflict when the email is taken. */
export function updateDeveloper(db: Database, o: { id: string; email?: string; firstName?: string; lastName?: string } & Audited): Promise<DeveloperRecord> {
  const { id, audit, ...changes } = o;
  return auditedChange(db, audit, (stores) => stores.organizations.updateDeveloper(id, changes));
}

/** Deletes a developer without apps. @throws NotFound, Conflict while they have apps. */
export function deleteDeveloper(db: Database, o: { id: string } & Audited): Promise<void> {
  return auditedChange(db, o.audit, async (stores) => {
    if (!(await stores.organizations.deleteDeveloper(o.id))) throw new Conflict("the developer still has apps");
  });
}
