-- CreateTable: the use of an account information consent at the gateway (one-off consents, frequencyPerDay)
CREATE TABLE "ConsentAccess" (
    "consentId" TEXT NOT NULL PRIMARY KEY,
    "firstDay" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "unattended" INTEGER NOT NULL
);
