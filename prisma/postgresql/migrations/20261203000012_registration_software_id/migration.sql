-- AlterTable: a dynamic registration's software_id and the organization it registered for, one registration each
ALTER TABLE "App" ADD COLUMN "softwareId" TEXT;
ALTER TABLE "App" ADD COLUMN "registeredOrganizationId" TEXT;

-- Backfill: the newest registration of each organization and software that is not revoked (deleted through RFC 7592,
-- or revoked by an admin) takes its software id; older duplicates stay unset, so the unique index below can be built.
WITH "live" AS (
  SELECT "App"."id", "Developer"."organizationId", ("App"."registration"::jsonb #>> '{metadata,softwareId}') AS "softwareId",
         row_number() OVER (
           PARTITION BY "Developer"."organizationId", ("App"."registration"::jsonb #>> '{metadata,softwareId}')
           ORDER BY "App"."createdAt" DESC, "App"."id" DESC
         ) AS "rank"
  FROM "App" JOIN "Developer" ON "Developer"."id" = "App"."developerId"
  WHERE "App"."registration" IS NOT NULL AND "App"."status" <> 'revoked'
)
UPDATE "App" SET "registeredOrganizationId" = "live"."organizationId", "softwareId" = "live"."softwareId"
FROM "live" WHERE "App"."id" = "live"."id" AND "live"."rank" = 1;

-- CreateIndex
CREATE UNIQUE INDEX "App_registeredOrganizationId_softwareId_key" ON "App"("registeredOrganizationId", "softwareId");
