-- AlterTable: dynamic client registration (RFC 7591, RFC 7592)
ALTER TABLE "App" ADD COLUMN "registration" TEXT;
ALTER TABLE "App" ADD COLUMN "registrationAccessTokenHash" TEXT;
