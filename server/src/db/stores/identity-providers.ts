/**
 * The identity provider store (stores/identity-providers.ts), on Prisma.
 */
import { joinList, splitList } from "../../kernel/list.js";
import type { IdentityProviderRecord, IdentityProviderSettings, IdentityProviderStore } from "../../stores/identity-providers.js";
import type { Executor } from "./executor.js";
import { domainError, withDomainErrors } from "./errors.js";

type Row = Omit<IdentityProviderRecord, "clientAuthMethod" | "scopes" | "scaAcrValues"> & { clientAuthMethod: string; scopes: string; scaAcrValues: string };

function record(row: Row): IdentityProviderRecord {
  return {
    ...row,
    clientAuthMethod: row.clientAuthMethod === "client_secret_basic" ? "client_secret_basic" : "private_key_jwt",
    scopes: splitList(row.scopes),
    scaAcrValues: splitList(row.scaAcrValues),
  };
}

/** The columns of `settings`, lists joined. */
function columns(settings: Partial<IdentityProviderSettings>) {
  const { scopes, scaAcrValues, ...rest } = settings;
  return { ...rest, ...(scopes ? { scopes: joinList(scopes) } : {}), ...(scaAcrValues ? { scaAcrValues: joinList(scaAcrValues) } : {}) };
}

const NOT_FOUND = "no identity provider with this id";

/** The identity provider store over `x`. */
export function identityProviderStore(x: Executor): IdentityProviderStore {
  const { prisma } = x;
  return {
    list: async () => (await prisma.identityProvider.findMany({ orderBy: { name: "asc" } })).map(record),
    async find(id) {
      const row = await prisma.identityProvider.findUnique({ where: { id } });
      return row ? record(row) : undefined;
    },
    create: async (settings) => record(await withDomainErrors(prisma.identityProvider.create({ data: columns(settings) as IdentityProviderSettings & { scopes: string; scaAcrValues: string } }))),
    update: async (id, changes) => record(await withDomainErrors(prisma.identityProvider.update({ where: { id }, data: columns(changes) }), NOT_FOUND)),
    async delete(id) {
      await withDomainErrors(prisma.identityProvider.delete({ where: { id } }), NOT_FOUND);
    },
    async userOf({ identityProviderId, subject, customerNumber }, username, now) {
      const where = { identityProviderId_subject: { identityProviderId, subject } };
      const linked = await prisma.federatedIdentity.findUnique({ where, select: { userId: true } });
      if (linked) {
        await prisma.federatedIdentity.update({ where, data: { customerNumber, lastSignInAt: now } });
        return linked.userId;
      }
      try {
        const created = await prisma.federatedIdentity.create({
          data: { identityProvider: { connect: { id: identityProviderId } }, subject, customerNumber, lastSignInAt: now, user: { create: { username, passwordHash: "" } } },
          select: { userId: true },
        });
        return created.userId;
      } catch (err) {
        // Two first sign-ins of one PSU at once: the other made the link.
        const raced = await prisma.federatedIdentity.findUnique({ where, select: { userId: true } });
        if (raced) return raced.userId;
        throw domainError(err);
      }
    },
    async customerNumberOf(userId) {
      const link = await prisma.federatedIdentity.findFirst({ where: { userId }, orderBy: { lastSignInAt: "desc" }, select: { customerNumber: true } });
      return link?.customerNumber ?? null;
    },
  };
}
