-- AlterTable: an app that must send a nonce with openid (OpenID Connect Core §3.1.2.1)
ALTER TABLE "App" ADD COLUMN "requireNonce" BOOLEAN NOT NULL DEFAULT false;

-- AlterTable: an API product's access token format: opaque or jwt (RFC 9068)
ALTER TABLE "ApiProduct" ADD COLUMN "accessTokenFormat" TEXT NOT NULL DEFAULT 'opaque';

-- AlterTable: the authorization request's ui_locales and resource indicators (RFC 8707)
ALTER TABLE "Interaction" ADD COLUMN "uiLocales" TEXT;
ALTER TABLE "Interaction" ADD COLUMN "resource" TEXT;
ALTER TABLE "AuthorizationCode" ADD COLUMN "resource" TEXT;

-- AlterTable: an access token's audience (RFC 8707) and format (RFC 9068)
ALTER TABLE "AccessToken" ADD COLUMN "audience" TEXT;
ALTER TABLE "AccessToken" ADD COLUMN "format" TEXT NOT NULL DEFAULT 'opaque';
