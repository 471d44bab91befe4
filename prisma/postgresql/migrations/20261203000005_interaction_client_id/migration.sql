-- AlterTable: the authorization request's client_id, the audience of a signed authorization response (JARM)
ALTER TABLE "Interaction" ADD COLUMN "clientId" TEXT;
