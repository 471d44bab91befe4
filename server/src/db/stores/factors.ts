/**
 * The factor store (stores/factors.ts), over Prisma: sign-ins are not a hot path. TOTP keys
 * are sealed under the key-encryption key (kernel/key-encryption.ts) as they are written and
 * opened as they are read; the store's callers see them in clear.
 */
import type { FactorStore, FactorSummary, FactorType, TotpFactor, WebAuthnFactor } from "../../stores/factors.js";
import type { UserFactor } from "../../generated/prisma/client.js";
import { joinList, splitList } from "../../kernel/list.js";
import type { KeyEncryption } from "../../kernel/key-encryption.js";
import type { Executor } from "./executor.js";
import { withDomainErrors } from "./errors.js";

function summary(row: UserFactor): FactorSummary {
  return { id: row.id, type: row.type as FactorType, name: row.name, createdAt: row.createdAt, lastUsedAt: row.lastUsedAt };
}

/** The sealing context of a user's TOTP keys: a key sealed for one user does not open for another. */
const totpContext = (userId: string) => `totp:${userId}`;

/** The key encryption of `x`. @throws Error when the database was opened without one (a tool's read-only use). */
function encryptionOf(x: Executor): KeyEncryption {
  if (!x.keyEncryption) throw new Error("TOTP keys need the key-encryption key: open the database with keyEncryption");
  return x.keyEncryption;
}

function totp(row: UserFactor, encryption: KeyEncryption): TotpFactor {
  const secret = encryption.open(row.secret ?? "", totpContext(row.userId)).toString("utf8");
  return { ...summary(row), type: "totp", secret, lastTimeStep: row.lastTimeStep };
}

function webAuthn(row: UserFactor): WebAuthnFactor {
  return {
    ...summary(row),
    type: "webauthn",
    userId: row.userId,
    credentialId: row.credentialId ?? "",
    publicKey: row.publicKey ?? "",
    counter: row.counter,
    deviceType: row.deviceType ?? "singleDevice",
    transports: splitList(row.transports),
  };
}

/** The factor store over `x`. */
export function factorStore(x: Executor): FactorStore {
  const { prisma } = x;
  return {
    async list(userId) {
      return (await prisma.userFactor.findMany({ where: { userId }, orderBy: { createdAt: "asc" } })).map(summary);
    },
    async totpFactors(userId) {
      const encryption = encryptionOf(x);
      return (await prisma.userFactor.findMany({ where: { userId, type: "totp" }, orderBy: { createdAt: "asc" } })).map((row) => totp(row, encryption));
    },
    async webAuthnCredential(credentialId) {
      const row = await prisma.userFactor.findUnique({ where: { credentialId } });
      return row?.type === "webauthn" ? webAuthn(row) : undefined;
    },
    async webAuthnCredentials(userId) {
      return (await prisma.userFactor.findMany({ where: { userId, type: "webauthn" }, orderBy: { createdAt: "asc" } })).map(webAuthn);
    },
    async insert(factor, now) {
      const data =
        factor.type === "totp"
          ? {
              userId: factor.userId,
              type: "totp",
              name: factor.name,
              secret: encryptionOf(x).seal(Buffer.from(factor.secret, "utf8"), totpContext(factor.userId)),
              lastTimeStep: factor.lastTimeStep,
              createdAt: now,
            }
          : {
              userId: factor.userId,
              type: "webauthn",
              name: factor.name,
              credentialId: factor.credentialId,
              publicKey: factor.publicKey,
              counter: factor.counter,
              deviceType: factor.deviceType,
              transports: joinList(factor.transports),
              createdAt: now,
            };
      return summary(await withDomainErrors(prisma.userFactor.create({ data })));
    },
    async acceptTimeStep(id, step, now) {
      const { count } = await prisma.userFactor.updateMany({
        where: { id, type: "totp", OR: [{ lastTimeStep: null }, { lastTimeStep: { lt: step } }] },
        data: { lastTimeStep: step, lastUsedAt: now },
      });
      return count === 1;
    },
    async recordWebAuthnUse(id, counter, now) {
      const { count } = await prisma.userFactor.updateMany({
        where: { id, type: "webauthn", counter: counter === 0 ? 0 : { lt: counter } },
        data: { counter, lastUsedAt: now },
      });
      return count === 1;
    },
    async delete(userId, id) {
      return (await prisma.userFactor.deleteMany({ where: { id, userId } })).count === 1;
    },
    async deleteAll(userId) {
      return (await prisma.userFactor.deleteMany({ where: { userId } })).count;
    },
    async sealTotpKeys() {
      const encryption = encryptionOf(x);
      let sealed = 0;
      // Only the rows not sealed under the first KEK are read: a start reads none once all are.
      const rows = await prisma.userFactor.findMany({ where: { type: "totp", NOT: { secret: { startsWith: encryption.currentPrefix } } }, select: { id: true, userId: true, secret: true } });
      for (const row of rows) {
        const stored = row.secret ?? "";
        // SQLite's LIKE ignores case: a prefix differing in case only is another KEK's.
        if (encryption.isCurrent(stored)) continue;
        const clear = encryption.isSealed(stored) ? encryption.open(stored, totpContext(row.userId)) : Buffer.from(stored, "utf8");
        const { count } = await prisma.userFactor.updateMany({ where: { id: row.id, secret: stored }, data: { secret: encryption.seal(clear, totpContext(row.userId)) } });
        sealed += count;
      }
      return sealed;
    },
  };
}
