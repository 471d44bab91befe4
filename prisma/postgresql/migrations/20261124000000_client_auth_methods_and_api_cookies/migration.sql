-- AlterTable: client authentication methods an app may use (existing apps: Basic only)
ALTER TABLE "App" ADD COLUMN "tokenEndpointAuthMethods" TEXT NOT NULL DEFAULT 'client_secret_basic';

-- AlterTable: forward an upstream's Set-Cookie only where the API says so
ALTER TABLE "Api" ADD COLUMN "passCookies" BOOLEAN NOT NULL DEFAULT false;
