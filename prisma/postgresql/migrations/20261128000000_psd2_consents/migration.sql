-- AlterTable: RFC 9396 authorization details types per API product, PSD2 dynamic linking per API
ALTER TABLE "ApiProduct" ADD COLUMN "authorizationDetailsTypes" TEXT NOT NULL DEFAULT '';
ALTER TABLE "Api" ADD COLUMN "consentCheck" TEXT NOT NULL DEFAULT 'none';

-- AlterTable: the PSD2 consent and the authorization details a grant carries
ALTER TABLE "AccessToken" ADD COLUMN "consentId" TEXT;
ALTER TABLE "AccessToken" ADD COLUMN "authorizationDetails" TEXT;
ALTER TABLE "AuthorizationCode" ADD COLUMN "consentId" TEXT;
ALTER TABLE "AuthorizationCode" ADD COLUMN "authorizationDetails" TEXT;
ALTER TABLE "Interaction" ADD COLUMN "consentId" TEXT;
CREATE INDEX "AccessToken_consentId_idx" ON "AccessToken"("consentId");

-- CreateTable: PSD2 consents (account information, payment initiation)
CREATE TABLE "Psd2Consent" (
    "id" TEXT NOT NULL,
    "appId" TEXT NOT NULL,
    "userId" TEXT,
    "kind" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'received',
    "requestedDetails" TEXT NOT NULL,
    "approvedDetails" TEXT,
    "validUntil" TIMESTAMP(3),
    "statusChangedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Psd2Consent_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "Psd2Consent_appId_idx" ON "Psd2Consent"("appId");
CREATE INDEX "Psd2Consent_userId_idx" ON "Psd2Consent"("userId");
ALTER TABLE "Psd2Consent" ADD CONSTRAINT "Psd2Consent_appId_fkey" FOREIGN KEY ("appId") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "Psd2Consent" ADD CONSTRAINT "Psd2Consent_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;
