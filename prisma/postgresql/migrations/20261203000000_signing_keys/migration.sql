-- CreateTable: this server's signing keys (server/src/keys/), private halves sealed or in a PKCS#11 device
CREATE TABLE "SigningKey" (
    "kid" TEXT NOT NULL,
    "alg" TEXT NOT NULL,
    "backend" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "slot" TEXT,
    "publicJwk" TEXT NOT NULL,
    "privateRef" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "activatedAt" TIMESTAMP(3),
    "retiredAt" TIMESTAMP(3),
    "signedUntil" TIMESTAMP(3),

    CONSTRAINT "SigningKey_pkey" PRIMARY KEY ("kid")
);

-- CreateIndex
CREATE UNIQUE INDEX "SigningKey_slot_key" ON "SigningKey"("slot");
