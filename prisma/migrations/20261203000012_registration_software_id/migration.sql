-- AlterTable: a dynamic registration's software_id and the organization it registered for, one registration each
ALTER TABLE "App" ADD COLUMN "softwareId" TEXT;
ALTER TABLE "App" ADD COLUMN "registeredOrganizationId" TEXT;

-- Backfill: the newest registration of each organization and software that is not revoked (deleted through RFC 7592,
-- or revoked by an admin) takes its software id; older duplicates stay unset, so the unique index below can be built.
UPDATE "App" SET
  "registeredOrganizationId" = (SELECT "Developer"."organizationId" FROM "Developer" WHERE "Developer"."id" = "App"."developerId"),
  "softwareId" = json_extract("App"."registration", '$.metadata.softwareId')
WHERE "App"."registration" IS NOT NULL AND json_valid("App"."registration") AND "App"."status" <> 'revoked'
  AND NOT EXISTS (
    SELECT 1 FROM "App" AS "newer"
    JOIN "Developer" AS "newerDeveloper" ON "newerDeveloper"."id" = "newer"."developerId"
    WHERE "newer"."registration" IS NOT NULL AND json_valid("newer"."registration") AND "newer"."status" <> 'revoked'
      AND json_extract("newer"."registration", '$.metadata.softwareId') = json_extract("App"."registration", '$.metadata.softwareId')
      AND "newerDeveloper"."organizationId" = (SELECT "Developer"."organizationId" FROM "Developer" WHERE "Developer"."id" = "App"."developerId")
      AND ("newer"."createdAt" > "App"."createdAt" OR ("newer"."createdAt" = "App"."createdAt" AND "newer"."id" > "App"."id"))
  );

-- CreateIndex
CREATE UNIQUE INDEX "App_registeredOrganizationId_softwareId_key" ON "App"("registeredOrganizationId", "softwareId");
