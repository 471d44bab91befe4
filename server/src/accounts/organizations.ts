/**
 * Organizations and their developers (Apigee: developer), for the admin API.
 */
import type { Db } from "../db/client.js";
import { paginate } from "../db/paginate.js";

export async function listOrganizations(db: Db, first: number, after?: string | null) {
  return paginate((args) => db.organization.findMany(args), first, after);
}

export async function findOrganization(db: Db, id: string) {
  return db.organization.findUnique({ where: { id } });
}

export async function createOrganization(db: Db, data: { name: string; displayName: string }) {
  return db.organization.create({ data });
}

export async function updateOrganization(db: Db, id: string, data: { name?: string; displayName?: string }) {
  return db.organization.update({ where: { id }, data });
}

/** Deletes an organization that has no developers. @returns false when it still has developers. */
export async function deleteOrganization(db: Db, id: string): Promise<boolean> {
  if ((await db.developer.count({ where: { organizationId: id } })) > 0) return false;
  await db.organization.delete({ where: { id } });
  return true;
}

export async function listDevelopers(db: Db, organizationId: string | null | undefined, first: number, after?: string | null) {
  return paginate((args) => db.developer.findMany({ ...args, where: organizationId ? { organizationId } : {} }), first, after);
}

export async function developersOf(db: Db, organizationId: string) {
  return db.developer.findMany({ where: { organizationId }, orderBy: { email: "asc" } });
}

export async function findDeveloper(db: Db, id: string) {
  return db.developer.findUnique({ where: { id } });
}

export async function createDeveloper(db: Db, data: { organizationId: string; email: string; firstName: string; lastName: string }) {
  return db.developer.create({ data });
}

export async function updateDeveloper(db: Db, id: string, data: { email?: string; firstName?: string; lastName?: string }) {
  return db.developer.update({ where: { id }, data });
}

/** Deletes a developer that has no apps. @returns false when it still has apps. */
export async function deleteDeveloper(db: Db, id: string): Promise<boolean> {
  if ((await db.app.count({ where: { developerId: id } })) > 0) return false;
  await db.developer.delete({ where: { id } });
  return true;
}
