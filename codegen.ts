/**
 * graphql-codegen: the admin API's resolver types, generated from its SDL
 * (server/src/admin/schema.graphql) into server/src/admin/generated/resolvers.ts, like
 * Prisma's client: not committed (.gitignore), written by `npm run graphql:generate`, which
 * `npm install` (postinstall) and `npm run build` run. The resolvers' parents are the store
 * records (mappers), their context is AdminContext.
 */
import type { CodegenConfig } from "@graphql-codegen/cli";

/** Store record module and type for a GraphQL object type, relative to the generated file. */
const record = (store: string, type: string) => `../../stores/${store}.js#${type}`;

const config: CodegenConfig = {
  schema: "server/src/admin/schema.graphql",
  generates: {
    "server/src/admin/generated/resolvers.ts": {
      plugins: ["typescript", "typescript-resolvers"],
      config: {
        contextType: "../context.js#AdminContext",
        mappers: {
          Organization: record("organizations", "OrganizationRecord"),
          Developer: record("organizations", "DeveloperRecord"),
          App: record("apps", "AppRecord"),
          Credential: record("apps", "CredentialRecord"),
          CredentialProduct: record("apps", "CredentialProductRecord"),
          ApiProduct: record("products", "ApiProductRecord"),
          Api: record("products", "ApiRecord"),
          User: record("users", "UserRecord"),
          UserFactor: record("factors", "FactorSummary"),
          AccessToken: record("tokens", "TokenRow"),
          Consent: record("consents", "ConsentRow"),
          MyConsent: record("consents", "ConsentRow"),
          Psd2Consent: record("psd2-consents", "Psd2ConsentSummary"),
          MyPsd2Consent: record("psd2-consents", "Psd2ConsentSummary"),
          AuthorizationEvidence: record("evidence", "EvidenceRecord"),
          AuditEvent: record("audit", "AuditEventRow"),
          SigningKey: record("signing-keys", "SigningKeyRecord"),
          IdentityProvider: record("identity-providers", "IdentityProviderRecord"),
          SigningKeyRotation: "../use-cases/signing-keys.js#SigningKeyRotationResult",
          Me: "../context.js#SignedInUser",
        },
        scalars: { DateTime: "Date" },
        strictScalars: true,
        enumsAsTypes: true,
        useTypeImports: true,
        // Resolvers may answer undefined (a store's "not found") where the schema allows null.
        maybeValue: "T | null | undefined",
      },
    },
  },
};

export default config;
