/**
 * Builds the stores (stores/index.ts) over an executor: once per provider for the
 * database, and once per transaction over that transaction (db/database.ts).
 */
import type { Stores } from "../../stores/index.js";
import { appStore } from "./apps.js";
import { auditStore } from "./audit.js";
import { catalogStore } from "./catalog.js";
import { clientStore } from "./clients.js";
import { codeStore } from "./codes.js";
import { consentStore } from "./consents.js";
import { consentAccessStore } from "./consent-access.js";
import { evidenceStore } from "./evidence.js";
import type { Executor } from "./executor.js";
import { factorStore } from "./factors.js";
import { identityProviderStore } from "./identity-providers.js";
import { interactionStore } from "./interactions.js";
import { organizationStore } from "./organizations.js";
import { productStore } from "./products.js";
import { psd2ConsentStore } from "./psd2-consents.js";
import { pushedRequestStore } from "./pushed-requests.js";
import { replayStore } from "./replays.js";
import { sessionStore } from "./sessions.js";
import { signingKeyStore } from "./signing-keys.js";
import { serverSecretStore } from "./server-secrets.js";
import { tokenStore } from "./tokens.js";
import { trafficStore } from "./traffic.js";
import { userStore } from "./users.js";

/** Every store over `x`. */
export function buildStores(x: Executor): Stores {
  return {
    clients: clientStore(x),
    catalog: catalogStore(x),
    tokens: tokenStore(x),
    codes: codeStore(x),
    interactions: interactionStore(x),
    consents: consentStore(x),
    psd2Consents: psd2ConsentStore(x),
    consentAccess: consentAccessStore(x),
    evidence: evidenceStore(x),
    users: userStore(x),
    factors: factorStore(x),
    identityProviders: identityProviderStore(x),
    audit: auditStore(x),
    sessions: sessionStore(x),
    organizations: organizationStore(x),
    apps: appStore(x),
    products: productStore(x),
    pushedRequests: pushedRequestStore(x),
    replays: replayStore(x),
    traffic: trafficStore(x),
    signingKeys: signingKeyStore(x),
    serverSecrets: serverSecretStore(x),
  };
}
