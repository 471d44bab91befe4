-- CreateTable: the bank's identity providers (federation)
CREATE TABLE "IdentityProvider" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "clientAuthMethod" TEXT NOT NULL,
    "clientSecret" TEXT,
    "scopes" TEXT NOT NULL DEFAULT 'openid',
    "customerNumberClaim" TEXT,
    "scaAcrValues" TEXT NOT NULL DEFAULT '',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable: a PSU's identity at an identity provider
CREATE TABLE "FederatedIdentity" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "identityProviderId" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "customerNumber" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSignInAt" DATETIME NOT NULL,
    CONSTRAINT "FederatedIdentity_identityProviderId_fkey" FOREIGN KEY ("identityProviderId") REFERENCES "IdentityProvider" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "FederatedIdentity_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- AlterTable: the identity provider an app, an API product or a sign-in uses
ALTER TABLE "App" ADD COLUMN "identityProviderId" TEXT REFERENCES "IdentityProvider" ("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "ApiProduct" ADD COLUMN "identityProviderId" TEXT REFERENCES "IdentityProvider" ("id") ON DELETE SET NULL ON UPDATE CASCADE;
ALTER TABLE "Interaction" ADD COLUMN "identityProviderId" TEXT;
ALTER TABLE "Interaction" ADD COLUMN "upstreamStateHash" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "IdentityProvider_name_key" ON "IdentityProvider"("name");

-- CreateIndex
CREATE UNIQUE INDEX "FederatedIdentity_identityProviderId_subject_key" ON "FederatedIdentity"("identityProviderId", "subject");

-- CreateIndex
CREATE INDEX "FederatedIdentity_userId_idx" ON "FederatedIdentity"("userId");

-- CreateIndex
CREATE UNIQUE INDEX "Interaction_upstreamStateHash_key" ON "Interaction"("upstreamStateHash");
