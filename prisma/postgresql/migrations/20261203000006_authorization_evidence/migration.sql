-- AlterTable: the verified signed request object of an authorization request, kept as evidence
ALTER TABLE "Interaction" ADD COLUMN "requestObject" TEXT;

-- CreateTable: evidence of signed authorization requests and responses (FAPI 2.0 Message Signing)
CREATE TABLE "AuthorizationEvidence" (
    "id" TEXT NOT NULL,
    "appId" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "psd2ConsentId" TEXT,
    "consentId" TEXT,
    "requestObject" TEXT,
    "authorizationResponse" TEXT,
    "outcome" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AuthorizationEvidence_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "AuthorizationEvidence_psd2ConsentId_idx" ON "AuthorizationEvidence"("psd2ConsentId");

-- CreateIndex
CREATE INDEX "AuthorizationEvidence_consentId_idx" ON "AuthorizationEvidence"("consentId");

-- CreateIndex
CREATE INDEX "AuthorizationEvidence_createdAt_idx" ON "AuthorizationEvidence"("createdAt");

-- AddForeignKey
ALTER TABLE "AuthorizationEvidence" ADD CONSTRAINT "AuthorizationEvidence_psd2ConsentId_fkey" FOREIGN KEY ("psd2ConsentId") REFERENCES "Psd2Consent"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "AuthorizationEvidence" ADD CONSTRAINT "AuthorizationEvidence_consentId_fkey" FOREIGN KEY ("consentId") REFERENCES "Consent"("id") ON DELETE SET NULL ON UPDATE CASCADE;
