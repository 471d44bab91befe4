-- CreateTable: this server's signing keys (server/src/keys/), private halves sealed or in a PKCS#11 device
CREATE TABLE "SigningKey" (
    "kid" TEXT NOT NULL PRIMARY KEY,
    "alg" TEXT NOT NULL,
    "backend" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "slot" TEXT,
    "publicJwk" TEXT NOT NULL,
    "privateRef" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "activatedAt" DATETIME,
    "retiredAt" DATETIME,
    "signedUntil" DATETIME
);

-- CreateIndex
CREATE UNIQUE INDEX "SigningKey_slot_key" ON "SigningKey"("slot");
