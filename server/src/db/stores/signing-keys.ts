/**
 * The signing key store (stores/signing-keys.ts), on Prisma; the promotion is one batch of
 * two conditional statements.
 */
import type { OwnSigningAlgorithm, SigningKeyRecord, SigningKeyState, SigningKeyStore } from "../../stores/signing-keys.js";
import type { SigningKey } from "../../generated/prisma/client.js";
import { Conflict } from "../../kernel/domain-errors.js";
import { withDomainErrors } from "./errors.js";
import type { Executor } from "./executor.js";

/** The unique slot of a next or current key of `alg`. */
const slotOf = (state: "next" | "current", alg: string) => `${state}:${alg}`;

function record(row: SigningKey): SigningKeyRecord {
  return {
    kid: row.kid,
    alg: row.alg as OwnSigningAlgorithm,
    backend: row.backend as SigningKeyRecord["backend"],
    state: row.state as SigningKeyState,
    publicJwk: JSON.parse(row.publicJwk) as Record<string, unknown>,
    privateRef: row.privateRef,
    createdAt: row.createdAt,
    activatedAt: row.activatedAt,
    retiredAt: row.retiredAt,
    signedUntil: row.signedUntil,
  };
}

/** The signing key store over `x`. */
export function signingKeyStore(x: Executor): SigningKeyStore {
  const { prisma, sql } = x;
  return {
    async list() {
      return (await prisma.signingKey.findMany({ orderBy: [{ createdAt: "asc" }, { kid: "asc" }] })).map(record);
    },
    async insertIfVacant(key, now) {
      try {
        await withDomainErrors(
          prisma.signingKey.create({
            data: {
              ...key,
              slot: slotOf(key.state, key.alg),
              publicJwk: JSON.stringify(key.publicJwk),
              activatedAt: key.state === "current" ? now : null,
            },
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof Conflict) return false;
        throw error;
      }
    },
    async promote(alg, nextKid, now) {
      // The current key is retired only while nextKid is still next; then nextKid takes the
      // current slot. An instance that promotes second changes nothing in either statement.
      const [, promoted] = await sql.batch([
        [
          `UPDATE "SigningKey" SET "state" = 'retired', "slot" = NULL, "retiredAt" = ?
           WHERE "slot" = ? AND EXISTS (SELECT 1 FROM "SigningKey" AS n WHERE n."kid" = ? AND n."slot" = ?)`,
          [now, slotOf("current", alg), nextKid, slotOf("next", alg)],
        ],
        [`UPDATE "SigningKey" SET "state" = 'current', "slot" = ?, "activatedAt" = ? WHERE "kid" = ? AND "slot" = ?`, [slotOf("current", alg), now, nextKid, slotOf("next", alg)]],
      ]);
      return promoted === 1;
    },
    async extendSignedUntil(kid, until) {
      await prisma.signingKey.updateMany({ where: { kid, OR: [{ signedUntil: null }, { signedUntil: { lt: until } }] }, data: { signedUntil: until } });
    },
    async replacePrivateRef(kid, from, to) {
      await prisma.signingKey.updateMany({ where: { kid, privateRef: from }, data: { privateRef: to } });
    },
    async deleteRetired(kid) {
      return (await prisma.signingKey.deleteMany({ where: { kid, state: "retired" } })).count === 1;
    },
  };
}
