-- A PSD2 consent outlives its app (deleteApp): the bank's record of what the PSU authorized.
ALTER TABLE "Psd2Consent" DROP CONSTRAINT "Psd2Consent_appId_fkey";
