-- AlterTable: FAPI 2.0 Message Signing per app: signed request objects required (RFC 9101), and the algorithms of
-- signed authorization responses (JARM) and signed introspection responses (RFC 9701)
ALTER TABLE "App" ADD COLUMN "requireSignedRequestObject" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "App" ADD COLUMN "authorizationSignedResponseAlg" TEXT NOT NULL DEFAULT 'PS256';
ALTER TABLE "App" ADD COLUMN "introspectionSignedResponseAlg" TEXT NOT NULL DEFAULT 'PS256';

-- AlterTable: the authorization request's response_mode, for a signed authorization response (JARM)
ALTER TABLE "Interaction" ADD COLUMN "responseMode" TEXT;
