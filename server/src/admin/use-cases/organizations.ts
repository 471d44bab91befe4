/**
 * Admin use cases of organizations and developers. Each runs in one transaction with its
 * audit event (common.ts).
 */
import { Conflict } from "../../kernel/domain-errors.js";
import type { Database } from "../../stores/index.js";
import type { DeveloperRecord, OrganizationRecord } from "../../stores/organizations.js";
import type { Stores } from "../../stores/index.js";
import { auditedChange, found, type Audited } from "./common.js";
import { pseudonym, pseudonymizeAudit } from "./erasure.js";

/** Creates an organization; its audit event's subject is the new id (an erasure finds it). @throws Conflict when the name is taken. */
export function createOrganization(db: Database, o: { name: string; displayName: string } & Audited): Promise<OrganizationRecord> {
  return db.transaction(async (stores) => {
    const organization = await stores.organizations.create({ name: o.name, displayName: o.displayName });
    await stores.audit.record({ ...o.audit, subject: organization.id });
    return organization;
  });
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

/**
 * Adds a developer to an organization; its audit event's subject is the new id (an erasure finds it).
 * @throws UnknownReference for an unknown organization, Conflict when the email is taken.
 */
export function createDeveloper(db: Database, o: Omit<DeveloperRecord, "id" | "createdAt"> & Audited): Promise<DeveloperRecord> {
  const { audit, ...developer } = o;
  return db.transaction(async (stores) => {
    const created = await stores.organizations.createDeveloper(developer);
    await stores.audit.record({ ...audit, subject: created.id });
    return created;
  });
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

/** What an erasure did: the pseudonym the audit log now names the erased by, and how many events it rewrote. */
export interface Erasure {
  id: string;
  pseudonym: string;
  auditEventsPseudonymized: number;
}

const DELETE_APPS_FIRST = "delete its apps first (deleteApp): an erasure removes no app, whose tokens and PSD2 records have their own lifecycle";

/** Erases developer `id` inside the caller's transaction (see {@link eraseDeveloper}). */
async function eraseDeveloperIn(stores: Stores, id: string): Promise<Erasure> {
  const developer = await found(stores.organizations.findDeveloper(id), "no developer with this id");
  if ((await stores.apps.ofDeveloper(id)).length > 0) throw new Conflict(`the developer still has apps: ${DELETE_APPS_FIRST}`);
  const rewritten = await pseudonymizeAudit(stores, "developer", id, { names: [developer.firstName, developer.lastName], emails: [developer.email] });
  await stores.organizations.deleteDeveloper(id);
  return { id, pseudonym: pseudonym("developer", id), auditEventsPseudonymized: rewritten };
}

/**
 * Erases a developer (GDPR Art. 17): deletes their record (email and names) and pseudonymizes
 * the audit events that name them (erasure.ts); the events stay, with their type, time, actor,
 * subject and ids (Art. 17(3)(b)). The audit event of the erasure names only the id and the pseudonym.
 * @throws NotFound, Conflict while the developer has apps (delete them first).
 */
export function eraseDeveloper(db: Database, o: { id: string } & Audited): Promise<Erasure> {
  return db.transaction(async (stores) => {
    const erasure = await eraseDeveloperIn(stores, o.id);
    await stores.audit.record({ ...o.audit, details: { ...o.audit.details, pseudonym: erasure.pseudonym, auditEventsPseudonymized: erasure.auditEventsPseudonymized } });
    return erasure;
  });
}

/**
 * Erases an organization (GDPR Art. 17, e.g. a sole trader's): erases each of its developers
 * as {@link eraseDeveloper} does, then deletes the organization and pseudonymizes the audit
 * events that name it (its names replaced, in its own events and wherever the name is a whole value).
 * @throws NotFound, Conflict while any of its developers has apps (delete them first).
 */
export function eraseOrganization(db: Database, o: { id: string } & Audited): Promise<Erasure> {
  return db.transaction(async (stores) => {
    const organization = await found(stores.organizations.find(o.id), "no organization with this id");
    let rewritten = 0;
    for (const developer of await stores.organizations.developersOf(o.id)) {
      if ((await stores.apps.ofDeveloper(developer.id)).length > 0) throw new Conflict(`the organization's developer ${developer.id} still has apps: ${DELETE_APPS_FIRST}`);
      rewritten += (await eraseDeveloperIn(stores, developer.id)).auditEventsPseudonymized;
    }
    rewritten += await pseudonymizeAudit(stores, "organization", o.id, { names: [organization.name, organization.displayName], emails: [] });
    await stores.organizations.delete(o.id);
    const erasure = { id: o.id, pseudonym: pseudonym("organization", o.id), auditEventsPseudonymized: rewritten };
    await stores.audit.record({ ...o.audit, details: { ...o.audit.details, pseudonym: erasure.pseudonym, auditEventsPseudonymized: rewritten } });
    return erasure;
  });
}
