-- AlterTable: the real outcome of a consent's payment at the upstream (consents/lifecycle.ts)
ALTER TABLE "Psd2Consent" ADD COLUMN "paymentRequestId" TEXT;
ALTER TABLE "Psd2Consent" ADD COLUMN "paymentBodyHash" TEXT;
ALTER TABLE "Psd2Consent" ADD COLUMN "paymentAttempts" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "Psd2Consent" ADD COLUMN "transactionStatus" TEXT;
ALTER TABLE "Psd2Consent" ADD COLUMN "statusReason" TEXT;
