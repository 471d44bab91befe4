/**
 * The organization store (stores/organizations.ts), on Prisma: organizations and their developers.
 */
import type { Prisma } from "../../generated/prisma/client.js";
import type { OrganizationStore } from "../../stores/organizations.js";
import { paginate, substringSearch } from "../paginate.js";
import type { Executor } from "./executor.js";
import { withDomainErrors } from "./errors.js";

/** The columns of an OrganizationRecord. */
const ORGANIZATION = { id: true, name: true, displayName: true, createdAt: true } satisfies Prisma.OrganizationSelect;
/** The columns of a DeveloperRecord. */
const DEVELOPER = { id: true, email: true, firstName: true, lastName: true, organizationId: true, createdAt: true } satisfies Prisma.DeveloperSelect;

/** The organization store over `x`. */
export function organizationStore(x: Executor): OrganizationStore {
  const { prisma, provider } = x;
  return {
    list: (page) => paginate((args) => prisma.organization.findMany({ ...args, select: ORGANIZATION }), page),
    async find(id) {
      return (await prisma.organization.findUnique({ where: { id }, select: ORGANIZATION })) ?? undefined;
    },
    async findByDirectory(issuer, organizationId) {
      const where = { directoryIssuer_directoryOrgId: { directoryIssuer: issuer, directoryOrgId: organizationId } };
      return (await prisma.organization.findUnique({ where, select: ORGANIZATION })) ?? undefined;
    },
    create: ({ directory, ...data }) =>
      withDomainErrors(
        prisma.organization.create({
          data: { ...data, ...(directory ? { directoryIssuer: directory.issuer, directoryOrgId: directory.organizationId } : {}) },
          select: ORGANIZATION,
        }),
      ),
    update: (id, data) => withDomainErrors(prisma.organization.update({ where: { id }, data, select: ORGANIZATION })),
    async delete(id) {
      if ((await prisma.developer.count({ where: { organizationId: id } })) > 0) return false;
      await withDomainErrors(prisma.organization.delete({ where: { id }, select: { id: true } }));
      return true;
    },

    listDevelopers(f, page) {
      const match = f.search ? substringSearch(provider, f.search) : undefined;
      const where = {
        ...(f.organizationId ? { organizationId: f.organizationId } : {}),
        ...(match ? { OR: [{ email: match.where }, { firstName: match.where }, { lastName: match.where }] } : {}),
      };
      return paginate(
        (args) => prisma.developer.findMany({ ...args, where, select: DEVELOPER }),
        page,
        "asc",
        (d) => !match || [d.email, d.firstName, d.lastName].some((text) => match.matches(text)),
      );
    },
    developersOf: (organizationId) => prisma.developer.findMany({ where: { organizationId }, orderBy: { email: "asc" }, select: DEVELOPER }),
    async findDeveloper(id) {
      return (await prisma.developer.findUnique({ where: { id }, select: DEVELOPER })) ?? undefined;
    },
    async findDeveloperByEmail(email) {
      return (await prisma.developer.findUnique({ where: { email }, select: DEVELOPER })) ?? undefined;
    },
    createDeveloper: (data) => withDomainErrors(prisma.developer.create({ data, select: DEVELOPER })),
    updateDeveloper: (id, data) => withDomainErrors(prisma.developer.update({ where: { id }, data, select: DEVELOPER })),
    async deleteDeveloper(id) {
      if ((await prisma.app.count({ where: { developerId: id } })) > 0) return false;
      await withDomainErrors(prisma.developer.delete({ where: { id }, select: { id: true } }));
      return true;
    },
  };
}
