/**
 * The console's GraphQL documents for strong customer authentication (issue 16): a user's
 * sign-in factors and their reset (an API product's `requiresSca` and an API's step-up
 * requirement are edited with the rest of the product and API, api/admin.ts). Only documents
 * are exported as strings here: server/test/spa-documents.test.ts validates each against the schema.
 */
import { gql } from "./graphql";

/** totp: an authenticator app; webauthn: a passkey or security key. */
export type FactorType = "totp" | "webauthn";

/** A user's sign-in factor as the admin API shows it (never its key). */
export interface UserFactor {
  id: string;
  type: FactorType;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

const FACTOR_FIELDS = "id type name createdAt lastUsedAt";

export const USER_FACTORS = gql<{ user: { id: string; username: string; factors: UserFactor[] } | null }, { id: string }>(`
  query UserFactors($id: ID!) {
    user(id: $id) { id username factors { ${FACTOR_FIELDS} } }
  }
`);

export const RESET_USER_FACTORS = gql<{ resetUserFactors: { id: string; username: string; factors: UserFactor[] } }, { userId: string }>(`
  mutation ResetUserFactors($userId: ID!) {
    resetUserFactors(userId: $userId) { id username factors { ${FACTOR_FIELDS} } }
  }
`);
