/**
 * Authorization server metadata (RFC 8414) at `GET /.well-known/oauth-authorization-server`.
 */
import type { Request, Response } from "express";
import type { Config } from "../config.js";
import type { CatalogStore } from "../stores/catalog.js";
import { CLIENT_AUTH_METHODS } from "../kernel/auth-methods.js";
import { grants } from "./grants/index.js";
import { ADMIN_SCOPE } from "./scopes.js";

/**
 * The metadata document (RFC 8414 §2) for this deployment. `scopes_supported` leaves out
 * the internal `admin` scope (RFC 8414 §2: a server may omit scopes it does not advertise).
 */
export function metadata(config: Config, scopes: string[]): Record<string, unknown> {
  const authMethods = [...CLIENT_AUTH_METHODS];
  return {
    issuer: config.authUrl,
    authorization_endpoint: `${config.authUrl}/authorize`,
    token_endpoint: `${config.baseUrl}/oauth2/v1/token`,
    revocation_endpoint: `${config.baseUrl}/oauth2/v1/revoke`,
    introspection_endpoint: `${config.baseUrl}/oauth2/v1/introspect`,
    scopes_supported: scopes.filter((s) => s !== ADMIN_SCOPE),
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: [...grants.keys()],
    token_endpoint_auth_methods_supported: authMethods,
    revocation_endpoint_auth_methods_supported: authMethods,
    introspection_endpoint_auth_methods_supported: authMethods,
    code_challenge_methods_supported: ["S256"],
    authorization_response_iss_parameter_supported: true,
    prompt_values_supported: ["none", "login", "consent"],
  };
}

/** Builds the Express handler. */
export function metadataEndpoint(config: Config, catalog: CatalogStore) {
  return async (_req: Request, res: Response): Promise<void> => {
    res.set("Cache-Control", "public, max-age=300").json(metadata(config, await catalog.scopeNames()));
  };
}
