-- AlterTable: the pushed request (its request_uri's SHA-256) an interaction answers, used up when the code is issued
ALTER TABLE "Interaction" ADD COLUMN "requestUriHash" TEXT;
