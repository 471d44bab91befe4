-- CreateTable: the bank's identity providers (federation)
CREATE TABLE "IdentityProvider" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "clientAuthMethod" TEXT NOT NULL,
    "clientSecret" TEXT,
    "scopes" TEXT NOT NULL DEFAULT 'openid',
    "customerNumberClaim" TEXT,
    "scaAcrValues" TEXT NOT NULL DEFAULT '',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "IdentityProvider_pkey" PRIMARY KEY ("id")
);

-- CreateTable: a PSU's identity at an identity provider
CREATE TABLE "FederatedIdentity" (
    "id" TEXT NOT NULL,
    "identityProviderId" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "customerNumber" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSignInAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "FederatedIdentity_pkey" PRIMARY KEY ("id")
);

-- AlterTable: the identity provider an app, an API product or a sign-in uses
ALTER TABLE "App" ADD COLUMN "identityProviderId" TEXT;
ALTER TABLE "ApiProduct" ADD COLUMN "identityProviderId" TEXT;
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

-- AddForeignKey
ALTER TABLE "App" ADD CONSTRAINT "App_identityProviderId_fkey" FOREIGN KEY ("identityProviderId") REFERENCES "IdentityProvider"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ApiProduct" ADD CONSTRAINT "ApiProduct_identityProviderId_fkey" FOREIGN KEY ("identityProviderId") REFERENCES "IdentityProvider"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "FederatedIdentity" ADD CONSTRAINT "FederatedIdentity_identityProviderId_fkey" FOREIGN KEY ("identityProviderId") REFERENCES "IdentityProvider"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "FederatedIdentity" ADD CONSTRAINT "FederatedIdentity_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
