/** Organizations and developers. */
import {
  createDeveloper,
  createOrganization,
  deleteDeveloper,
  deleteOrganization,
  developersOf,
  findDeveloper,
  findOrganization,
  listDevelopers,
  listOrganizations,
  updateDeveloper,
  updateOrganization,
} from "../../accounts/organizations.js";
import { appsOfDeveloper } from "../../apps/management.js";
import { gqlError, type AdminContext } from "../context.js";
import { check, checkOptional, v } from "../validation.js";
import type { Resolvers } from "./types.js";

interface Row {
  id: string;
  organizationId: string;
}

export const organizationResolvers: Resolvers = {
  Query: {
    organizations: (_p, a: { first: number; after?: string }, { db }) => listOrganizations(db, check(v.first, a.first, "first"), a.after),
    organization: (_p, a: { id: string }, { db }) => findOrganization(db, a.id),
    developers: (_p, a: { organizationId?: string; first: number; after?: string }, { db }) =>
      listDevelopers(db, a.organizationId, check(v.first, a.first, "first"), a.after),
  },
  Mutation: {
    createOrganization: (_p, { input }: { input: { name: string; displayName?: string } }, { db }) => {
      const name = check(v.name, input.name, "name");
      return createOrganization(db, { name, displayName: checkOptional(v.name, input.displayName, "displayName") ?? name });
    },
    updateOrganization: (_p, { id, input }: { id: string; input: { name?: string; displayName?: string } }, { db }) =>
      updateOrganization(db, id, { name: checkOptional(v.name, input.name, "name"), displayName: checkOptional(v.name, input.displayName, "displayName") }),
    deleteOrganization: async (_p, { id }: { id: string }, { db }) => {
      if (!(await deleteOrganization(db, id))) throw gqlError("CONFLICT", "the organization still has developers");
      return id;
    },
    createDeveloper: (_p, { input }: { input: { organizationId: string; email: string; firstName?: string; lastName?: string } }, { db }) =>
      createDeveloper(db, {
        organizationId: input.organizationId,
        email: check(v.email, input.email, "email"),
        firstName: checkOptional(v.name, input.firstName, "firstName") ?? "",
        lastName: checkOptional(v.name, input.lastName, "lastName") ?? "",
      }),
    updateDeveloper: (_p, { id, input }: { id: string; input: { email?: string; firstName?: string; lastName?: string } }, { db }) =>
      updateDeveloper(db, id, {
        email: checkOptional(v.email, input.email, "email"),
        firstName: checkOptional(v.name, input.firstName, "firstName"),
        lastName: checkOptional(v.name, input.lastName, "lastName"),
      }),
    deleteDeveloper: async (_p, { id }: { id: string }, { db }) => {
      if (!(await deleteDeveloper(db, id))) throw gqlError("CONFLICT", "the developer still has apps");
      return id;
    },
  },
  Organization: {
    developers: (o: { id: string }, _a, { db }: AdminContext) => developersOf(db, o.id),
  },
  Developer: {
    organization: (d: Row, _a, { db }: AdminContext) => findOrganization(db, d.organizationId),
    apps: (d: Row, _a, { db }: AdminContext) => appsOfDeveloper(db, d.id),
  },
};

/** Resolves a developer id to its row. @throws NOT_FOUND. */
export async function requireDeveloper(ctx: AdminContext, id: string) {
  const developer = await findDeveloper(ctx.db, id);
  if (!developer) throw gqlError("NOT_FOUND", "no developer with this id");
  return developer;
}
