-- AlterTable: the challenge of a login or consent delegated to the bank's own application
ALTER TABLE "Interaction" ADD COLUMN "challengeHash" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "Interaction_challengeHash_key" ON "Interaction"("challengeHash");
