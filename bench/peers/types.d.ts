/**
 * The little of oidc-provider's API that the peers of bench/peers/ use (the package ships no
 * types).
 */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  export default class Provider {
    constructor(issuer: string, configuration?: Record<string, unknown>);
    /** A node:http request handler. */
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}

/** oidc-provider's in-memory adapter, over the store given (bench/peers/oidc-provider-openid.ts). */
declare module "oidc-provider/lib/adapters/memory_adapter.js" {
  export default class MemoryAdapter {
    constructor(model: string, store: unknown);
  }
}

/** The LRU store of oidc-provider's in-memory adapter. */
declare module "oidc-provider/lib/helpers/lru.js" {
  export default class LRU {
    constructor(options: { maxSize: number });
  }
}
