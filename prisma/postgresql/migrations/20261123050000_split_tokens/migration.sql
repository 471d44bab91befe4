-- DropIndex
DROP INDEX "AccessToken_tokenHash_key";

-- DropIndex
DROP INDEX "AccessToken_refreshTokenHash_key";

