/**
 * Database errors as the domain errors of kernel/domain-errors.ts, in one place: Prisma's
 * codes for a missing record, a unique value taken and a missing referenced record.
 */
import { Conflict, NotFound, UnknownReference } from "../../kernel/domain-errors.js";

/** Prisma error codes (https://www.prisma.io/docs/orm/reference/error-reference). */
const RECORD_NOT_FOUND = "P2025";
const UNIQUE_VIOLATION = "P2002";
const FOREIGN_KEY_VIOLATION = "P2003";

/** The domain error for a Prisma error, or the error itself. */
export function domainError(err: unknown, notFound = "no record with this id"): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === RECORD_NOT_FOUND) return new NotFound(notFound);
  if (code === UNIQUE_VIOLATION) return new Conflict("a record with this unique value already exists");
  if (code === FOREIGN_KEY_VIOLATION) return new UnknownReference("a referenced record does not exist");
  return err;
}

/** Awaits a Prisma query, turning its errors into domain errors ({@link domainError}). */
export async function withDomainErrors<T>(write: Promise<T>, notFound?: string): Promise<T> {
  try {
    return await write;
  } catch (err) {
    throw domainError(err, notFound);
  }
}
