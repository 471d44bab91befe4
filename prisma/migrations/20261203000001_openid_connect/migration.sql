-- AlterTable: OpenID Connect Core §5.1 standard claims of a user, answered by UserInfo
ALTER TABLE "User" ADD COLUMN "name" TEXT;
ALTER TABLE "User" ADD COLUMN "givenName" TEXT;
ALTER TABLE "User" ADD COLUMN "familyName" TEXT;
ALTER TABLE "User" ADD COLUMN "email" TEXT;
ALTER TABLE "User" ADD COLUMN "emailVerified" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable: the authorization request's nonce (OpenID Connect Core §3.1.2.1), carried into the ID token, and its login_hint
ALTER TABLE "Interaction" ADD COLUMN "nonce" TEXT;
ALTER TABLE "Interaction" ADD COLUMN "loginHint" TEXT;
ALTER TABLE "AuthorizationCode" ADD COLUMN "nonce" TEXT;

-- AlterTable: the algorithm an app's ID tokens are signed with (OpenID Connect Registration §2)
ALTER TABLE "App" ADD COLUMN "idTokenSignedResponseAlg" TEXT NOT NULL DEFAULT 'PS256';
