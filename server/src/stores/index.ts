/**
 * The store ports: one interface per domain store, implemented once per database provider
 * in db/stores (SQLite, PostgreSQL), the way ORY fosite and Hydra separate their storage.
 * Grants, endpoints, the gateway, the flow and the admin use cases receive the stores they
 * need and never see SQL, Prisma, caches or connections.
 */
import type { AppStore } from "./apps.js";
import type { AuditStore } from "./audit.js";
import type { CatalogStore } from "./catalog.js";
import type { ClientStore } from "./clients.js";
import type { AuthorizationCodeStore } from "./codes.js";
import type { ConsentStore } from "./consents.js";
import type { ConsentAccessStore } from "./consent-access.js";
import type { EvidenceStore } from "./evidence.js";
import type { FactorStore } from "./factors.js";
import type { IdentityProviderStore } from "./identity-providers.js";
import type { InteractionStore } from "./interactions.js";
import type { OrganizationStore } from "./organizations.js";
import type { ProductStore } from "./products.js";
import type { Psd2ConsentStore } from "./psd2-consents.js";
import type { PushedRequestStore } from "./pushed-requests.js";
import type { ReplayStore } from "./replays.js";
import type { SessionStore } from "./sessions.js";
import type { SigningKeyStore } from "./signing-keys.js";
import type { ServerSecretStore } from "./server-secrets.js";
import type { TokenStore } from "./tokens.js";
import type { TrafficStore } from "./traffic.js";
import type { UserStore } from "./users.js";

/** Every domain store, bound to the database or to one of its transactions. */
export interface Stores {
  clients: ClientStore;
  catalog: CatalogStore;
  tokens: TokenStore;
  codes: AuthorizationCodeStore;
  interactions: InteractionStore;
  consents: ConsentStore;
  psd2Consents: Psd2ConsentStore;
  consentAccess: ConsentAccessStore;
  evidence: EvidenceStore;
  users: UserStore;
  factors: FactorStore;
  identityProviders: IdentityProviderStore;
  audit: AuditStore;
  sessions: SessionStore;
  organizations: OrganizationStore;
  apps: AppStore;
  products: ProductStore;
  pushedRequests: PushedRequestStore;
  replays: ReplayStore;
  traffic: TrafficStore;
  signingKeys: SigningKeyStore;
  serverSecrets: ServerSecretStore;
}

/** The stores of the database, and its transactions. */
export interface Database extends Stores {
  /**
   * Runs `fn` in one transaction: everything `fn` does through the stores it is given
   * commits when `fn` resolves and rolls back when it throws. Inside `fn`, use only those
   * stores and no other I/O: calling this database's own stores there throws
   * (`OuterStoreInTransaction`) instead of waiting for the very transaction it runs in.
   */
  transaction<T>(fn: (tx: Stores) => Promise<T>): Promise<T>;
}
