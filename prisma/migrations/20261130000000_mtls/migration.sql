-- AlterTable: tls_client_auth (RFC 8705 §2.1.2), the certificate name that identifies an app
ALTER TABLE "App" ADD COLUMN "tlsClientAuthParameter" TEXT;
ALTER TABLE "App" ADD COLUMN "tlsClientAuthValue" TEXT;

-- AlterTable: certificate-bound access tokens (RFC 8705 §3, cnf.x5t#S256)
ALTER TABLE "AccessToken" ADD COLUMN "x5t" TEXT;
