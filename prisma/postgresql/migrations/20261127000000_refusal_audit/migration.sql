-- AlterTable: aggregated refusal events, one row per (type, client, reason, minute) with a count
ALTER TABLE "AuditEvent" ADD COLUMN "count" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "AuditEvent" ADD COLUMN "aggregateKey" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "AuditEvent_aggregateKey_key" ON "AuditEvent"("aggregateKey");
