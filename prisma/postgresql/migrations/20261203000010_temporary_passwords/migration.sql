-- AlterTable: a temporary password set by an administrator, valid until this time and changed at the next sign-in
ALTER TABLE "User" ADD COLUMN "temporaryPasswordUntil" TIMESTAMP(3);
