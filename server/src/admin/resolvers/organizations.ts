/** Organizations and developers. */
import type { Resolvers } from "../generated/resolvers.js";
import { found } from "../use-cases/common.js";
import {
  createDeveloper,
  createOrganization,
  deleteDeveloper,
  deleteOrganization,
  eraseDeveloper,
  eraseOrganization,
  updateDeveloper,
  updateOrganization,
} from "../use-cases/organizations.js";
import { check, checkOptional, v } from "../validation.js";
import { adminEvent } from "./audit.js";

/** Resolvers of the organizations domain: its Query and Mutation fields and its object types' fields. */
export const organizationResolvers: Resolvers = {
  Query: {
    organizations: (_p, a, { db }) => db.organizations.list({ first: check(v.first, a.first, "first"), after: a.after }),
    organization: (_p, a, { db }) => db.organizations.find(a.id),
    developer: (_p, a, { db }) => db.organizations.findDeveloper(a.id),
    developers: (_p, a, { db }) =>
      db.organizations.listDevelopers(
        { organizationId: a.organizationId, search: checkOptional(v.search, a.search, "search") },
        { first: check(v.first, a.first, "first"), after: a.after },
      ),
  },
  Mutation: {
    createOrganization: (_p, args, ctx, info) => {
      const { input } = args;
      const name = check(v.name, input.name, "name");
      const displayName = checkOptional(v.name, input.displayName, "displayName") ?? name;
      return createOrganization(ctx.db, { name, displayName, audit: adminEvent(args, ctx, info) });
    },
    updateOrganization: (_p, args, ctx, info) => {
      const { id, input } = args;
      const name = checkOptional(v.name, input.name, "name");
      const displayName = checkOptional(v.name, input.displayName, "displayName");
      return updateOrganization(ctx.db, { id, name, displayName, audit: adminEvent(args, ctx, info) });
    },
    deleteOrganization: async (_p, args, ctx, info) => {
      await deleteOrganization(ctx.db, { id: args.id, audit: adminEvent(args, ctx, info) });
      return args.id;
    },
    createDeveloper: (_p, args, ctx, info) => {
      const { input } = args;
      return createDeveloper(ctx.db, {
        organizationId: input.organizationId,
        email: check(v.email, input.email, "email"),
        firstName: checkOptional(v.name, input.firstName, "firstName") ?? "",
        lastName: checkOptional(v.name, input.lastName, "lastName") ?? "",
        audit: adminEvent(args, ctx, info),
      });
    },
    updateDeveloper: (_p, args, ctx, info) => {
      const { id, input } = args;
      return updateDeveloper(ctx.db, {
        id,
        email: checkOptional(v.email, input.email, "email"),
        firstName: checkOptional(v.name, input.firstName, "firstName"),
        lastName: checkOptional(v.name, input.lastName, "lastName"),
        audit: adminEvent(args, ctx, info),
      });
    },
    deleteDeveloper: async (_p, args, ctx, info) => {
      await deleteDeveloper(ctx.db, { id: args.id, audit: adminEvent(args, ctx, info) });
      return args.id;
    },
    eraseDeveloper: (_p, args, ctx, info) => eraseDeveloper(ctx.db, { id: args.id, audit: adminEvent(args, ctx, info) }),
    eraseOrganization: (_p, args, ctx, info) => eraseOrganization(ctx.db, { id: args.id, audit: adminEvent(args, ctx, info) }),
  },
  Organization: {
    developers: (o, _a, { db }) => db.organizations.developersOf(o.id),
  },
  Developer: {
    organization: (d, _a, { db }) => found(db.organizations.find(d.organizationId), "no organization with this id"),
    apps: (d, _a, { db }) => db.apps.ofDeveloper(d.id),
  },
};
