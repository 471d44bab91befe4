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
    "id" TEXT NOT NULL PRIMARY KEY,
    "requestUriHash" TEXT NOT NULL,
    "appId" TEXT NOT NULL,
    "parameters" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "usedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "PushedAuthorizationRequest_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "PushedAuthorizationRequest_requestUriHash_key" ON "PushedAuthorizationRequest"("requestUriHash");
CREATE INDEX "PushedAuthorizationRequest_expiresAt_idx" ON "PushedAuthorizationRequest"("expiresAt");

-- CreateTable: used JWT ids of client assertions and DPoP proofs
CREATE TABLE "UsedJti" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "expiresAt" DATETIME NOT NULL
);
CREATE INDEX "UsedJti_expiresAt_idx" ON "UsedJti"("expiresAt");
