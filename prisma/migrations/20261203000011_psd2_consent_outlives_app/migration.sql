-- A PSD2 consent outlives its app (deleteApp): the bank's record of what the PSU authorized.
-- RedefineTables without the foreign key to App. Migrations run in a transaction, where
-- PRAGMA foreign_keys cannot be turned off, so the evidence's links to the consents (which
-- dropping the table would set null) are saved and put back.
CREATE TEMP TABLE "saved_evidence_link" AS SELECT "id", "psd2ConsentId" FROM "AuthorizationEvidence" WHERE "psd2ConsentId" IS NOT NULL;
CREATE TABLE "new_Psd2Consent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "appId" TEXT NOT NULL,
    "userId" TEXT,
    "kind" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'received',
    "requestedDetails" TEXT NOT NULL,
    "approvedDetails" TEXT,
    "validUntil" DATETIME,
    "statusChangedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "paymentRequestId" TEXT,
    "paymentBodyHash" TEXT,
    "paymentAttempts" INTEGER NOT NULL DEFAULT 0,
    "transactionStatus" TEXT,
    "statusReason" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Psd2Consent_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Psd2Consent" ("id", "appId", "userId", "kind", "origin", "status", "requestedDetails", "approvedDetails", "validUntil", "statusChangedAt", "paymentRequestId", "paymentBodyHash", "paymentAttempts", "transactionStatus", "statusReason", "createdAt")
SELECT "id", "appId", "userId", "kind", "origin", "status", "requestedDetails", "approvedDetails", "validUntil", "statusChangedAt", "paymentRequestId", "paymentBodyHash", "paymentAttempts", "transactionStatus", "statusReason", "createdAt" FROM "Psd2Consent";
DROP TABLE "Psd2Consent";
ALTER TABLE "new_Psd2Consent" RENAME TO "Psd2Consent";
CREATE INDEX "Psd2Consent_appId_idx" ON "Psd2Consent"("appId");
CREATE INDEX "Psd2Consent_userId_idx" ON "Psd2Consent"("userId");
UPDATE "AuthorizationEvidence" SET "psd2ConsentId" = (SELECT "psd2ConsentId" FROM "saved_evidence_link" s WHERE s."id" = "AuthorizationEvidence"."id") WHERE "id" IN (SELECT "id" FROM "saved_evidence_link");
DROP TABLE "saved_evidence_link";
