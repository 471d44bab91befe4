-- AlterTable: an app's subject identifiers (OpenID Connect Core §8): public or pairwise, and its sector identifier URI
ALTER TABLE "App" ADD COLUMN "subjectType" TEXT NOT NULL DEFAULT 'public';
ALTER TABLE "App" ADD COLUMN "sectorIdentifierUri" TEXT;

-- AlterTable: where an app may send the browser after RP-Initiated Logout (post_logout_redirect_uris)
ALTER TABLE "App" ADD COLUMN "postLogoutRedirectUris" TEXT NOT NULL DEFAULT '';

-- CreateTable: the server's own secrets, sealed under the key-encryption key (the pairwise subject salt)
CREATE TABLE "ServerSecret" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "sealed" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL
);
