-- AlterTable: an organization created by dynamic client registration is keyed by its directory and the directory's org_id
ALTER TABLE "Organization" ADD COLUMN "directoryIssuer" TEXT;
ALTER TABLE "Organization" ADD COLUMN "directoryOrgId" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "Organization_directoryIssuer_directoryOrgId_key" ON "Organization"("directoryIssuer", "directoryOrgId");
