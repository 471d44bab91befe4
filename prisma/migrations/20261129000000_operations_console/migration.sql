-- AlterTable: who revoked an access token
ALTER TABLE "AccessToken" ADD COLUMN "revokedBy" TEXT;

-- AlterTable: a refusal's reason, filterable and countable
ALTER TABLE "AuditEvent" ADD COLUMN "reason" TEXT;
UPDATE "AuditEvent" SET "reason" = json_extract("details", '$.reason') WHERE "aggregateKey" IS NOT NULL;

-- CreateTable: gateway calls per minute, API, client and status class
CREATE TABLE "GatewayTraffic" (
    "minute" DATETIME NOT NULL,
    "api" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "statusClass" INTEGER NOT NULL,
    "count" INTEGER NOT NULL,

    PRIMARY KEY ("minute", "api", "clientId", "statusClass")
);
