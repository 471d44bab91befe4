/**
 * The console's GraphQL documents for strong customer authentication (issue 16): an API
 * product's `requiresSca`, an API's step-up requirement (`requiredAcr`, `maxAgeSeconds`,
 * RFC 9470), a user's sign-in factors and their reset. Only documents are exported as
 * strings here: server/test/spa-documents.test.ts validates each against the schema.
 */
import type { Api, ApiProduct, CreateApiInput, CreateApiProductInput } from "./admin";
import { gql } from "./graphql";

/** An API product with whether it needs PSD2 strong customer authentication. */
export interface ScaApiProduct extends ApiProduct {
  requiresSca: boolean;
}

/** An API with its step-up requirement. */
export interface StepUpApi extends Api {
  /** The acr a token's user authentication must meet (urn:tollgate:pwd | urn:tollgate:sca), or null for any. */
  requiredAcr: string | null;
  /** The most seconds since the user's authentication, or null for any. */
  maxAgeSeconds: number | null;
}

const PRODUCT_FIELDS = "id name displayName description scopes requiresSca apis { id name } createdAt";
const API_FIELDS = "id name upstreamUrl requiredScopes passCookies requiredAcr maxAgeSeconds products { id name } createdAt";

export const SCA_PRODUCTS_AND_APIS = gql<{ apiProducts: ScaApiProduct[]; apis: StepUpApi[] }>(`
  query ScaProductsAndApis {
    apiProducts { ${PRODUCT_FIELDS} }
    apis { ${API_FIELDS} }
  }
`);

export const CREATE_API_PRODUCT_SCA = gql<{ createApiProduct: ScaApiProduct }, { input: CreateApiProductInput & { requiresSca?: boolean } }>(`
  mutation CreateApiProductSca($input: CreateApiProductInput!) {
    createApiProduct(input: $input) { ${PRODUCT_FIELDS} }
  }
`);

/** Turns an API product's strong customer authentication requirement on or off. */
export const UPDATE_API_PRODUCT_SCA = gql<{ updateApiProduct: ScaApiProduct }, { id: string; requiresSca: boolean }>(`
  mutation UpdateApiProductSca($id: ID!, $requiresSca: Boolean!) {
    updateApiProduct(id: $id, input: { requiresSca: $requiresSca }) { ${PRODUCT_FIELDS} }
  }
`);

/** `requiredAcr`: null or "" for none; `maxAgeSeconds`: null for none. */
export type StepUpInput = { requiredAcr?: string | null; maxAgeSeconds?: number | null };

export const CREATE_API_STEP_UP = gql<{ createApi: StepUpApi }, { input: CreateApiInput & StepUpInput }>(`
  mutation CreateApiStepUp($input: CreateApiInput!) {
    createApi(input: $input) { ${API_FIELDS} }
  }
`);

/** Sets an API's step-up requirement: both values, null meaning none. */
export const UPDATE_API_STEP_UP = gql<{ updateApi: StepUpApi }, { id: string; requiredAcr: string | null; maxAgeSeconds: number | null }>(`
  mutation UpdateApiStepUp($id: ID!, $requiredAcr: String, $maxAgeSeconds: Int) {
    updateApi(id: $id, input: { requiredAcr: $requiredAcr, maxAgeSeconds: $maxAgeSeconds }) { ${API_FIELDS} }
  }
`);

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
