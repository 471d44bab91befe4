-- AlterTable: where the user authenticated (the bank's identity provider, or its own application)
ALTER TABLE "AccessToken" ADD COLUMN "authenticatedBy" TEXT;
ALTER TABLE "AuthorizationCode" ADD COLUMN "authenticatedBy" TEXT;
