-- AlterTable: FAPI 2.0 security profile and private_key_jwt keys per app
ALTER TABLE "App" ADD COLUMN "securityProfile" TEXT NOT NULL DEFAULT 'standard';
ALTER TABLE "App" ADD COLUMN "jwks" TEXT NOT NULL DEFAULT '';
ALTER TABLE "App" ADD COLUMN "jwksUri" TEXT;

-- AlterTable: DPoP binding (RFC 9449) of tokens, codes and interactions
ALTER TABLE "AccessToken" ADD COLUMN "jkt" TEXT;
ALTER TABLE "AuthorizationCode" ADD COLUMN "dpopJkt" TEXT;
ALTER TABLE "Interaction" ADD COLUMN "dpopJkt" TEXT;

-- CreateTable: pushed authorization requests (RFC 9126)
CREATE TABLE "PushedAuthorizationRequest" (
    "id" TEXT NOT NULL,
    "requestUriHash" TEXT NOT NULL,
    "appId" TEXT NOT NULL,
    "parameters" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PushedAuthorizationRequest_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "PushedAuthorizationRequest_requestUriHash_key" ON "PushedAuthorizationRequest"("requestUriHash");
CREATE INDEX "PushedAuthorizationRequest_expiresAt_idx" ON "PushedAuthorizationRequest"("expiresAt");
ALTER TABLE "PushedAuthorizationRequest" ADD CONSTRAINT "PushedAuthorizationRequest_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable: used JWT ids of client assertions and DPoP proofs
CREATE TABLE "UsedJti" (
    "key" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "UsedJti_pkey" PRIMARY KEY ("key")
);
CREATE INDEX "UsedJti_expiresAt_idx" ON "UsedJti"("expiresAt");
