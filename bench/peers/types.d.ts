/**
 * The little of oidc-provider's API that bench/peers/oidc-provider.ts uses (the package
 * ships no types).
 */
declare module "oidc-provider" {
  import type { IncomingMessage, ServerResponse } from "node:http";

  export default class Provider {
    constructor(issuer: string, configuration?: Record<string, unknown>);
    /** A node:http request handler. */
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
