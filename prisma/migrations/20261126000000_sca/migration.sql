-- AlterTable: PSD2 strong customer authentication per API product, step-up per API (RFC 9470)
ALTER TABLE "ApiProduct" ADD COLUMN "requiresSca" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "Api" ADD COLUMN "requiredAcr" TEXT NOT NULL DEFAULT '';
ALTER TABLE "Api" ADD COLUMN "maxAgeSeconds" INTEGER;

-- AlterTable: the authentication behind a grant (acr, amr, auth_time)
ALTER TABLE "AccessToken" ADD COLUMN "acr" TEXT;
ALTER TABLE "AccessToken" ADD COLUMN "amr" TEXT;
ALTER TABLE "AccessToken" ADD COLUMN "authTime" DATETIME;
ALTER TABLE "AuthorizationCode" ADD COLUMN "acr" TEXT;
ALTER TABLE "AuthorizationCode" ADD COLUMN "amr" TEXT;
ALTER TABLE "AuthorizationCode" ADD COLUMN "authTime" DATETIME;
ALTER TABLE "Interaction" ADD COLUMN "scaRequired" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "Interaction" ADD COLUMN "amr" TEXT NOT NULL DEFAULT '';
ALTER TABLE "Interaction" ADD COLUMN "authTime" DATETIME;

-- CreateTable: second factors (TOTP keys, WebAuthn credentials)
CREATE TABLE "UserFactor" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "userId" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "secret" TEXT,
    "lastTimeStep" INTEGER,
    "credentialId" TEXT,
    "publicKey" TEXT,
    "counter" INTEGER NOT NULL DEFAULT 0,
    "deviceType" TEXT,
    "transports" TEXT NOT NULL DEFAULT '',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" DATETIME,
    CONSTRAINT "UserFactor_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "UserFactor_credentialId_key" ON "UserFactor"("credentialId");
CREATE INDEX "UserFactor_userId_idx" ON "UserFactor"("userId");
