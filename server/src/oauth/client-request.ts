/**
 * The common first steps of the token, PAR, revocation and introspection endpoints: a
 * strict form body and client authentication (HTTP Basic, the form's client_id and
 * client_secret, or a client assertion), with failed authentications written to the audit log.
 */
import type { IncomingMessage } from "node:http";
import type { Stores } from "../stores/index.js";
import { authenticateClient, presentedClientId, type Client } from "./client-auth.js";
import { InvalidClient } from "../kernel/errors.js";
import { readForm, type FormParams } from "./form.js";

/** A request to the token, PAR, revocation or introspection endpoint, with its form body text, client IP and path. */
export type ClientRequest = IncomingMessage & { body?: unknown; ip: string; path: string };

/** Where a client-authenticated endpoint is and whose it is. */
export interface EndpointContext {
  /** Realm of `WWW-Authenticate` challenges. */
  realm: string;
  /** The issuer identifier (RFC 8414 `issuer`). */
  issuer: string;
  /** This endpoint's URL. */
  url: string;
  /**
   * The `aud` values a client assertion may carry: the issuer (FAPI 2.0 §5.3.2.1), the
   * token endpoint's URL and this endpoint's.
   */
  audiences: readonly string[];
}

/** The stores client authentication reads and writes. */
export type ClientRequestStores = Pick<Stores, "clients" | "audit" | "replays">;

/**
 * @param stores - the clients, used assertion ids, and the audit log for failures.
 * @returns the form parameters and the authenticated client.
 * @throws InvalidRequest for a bad form or two client authentication methods; InvalidClient
 *   (401) for failed client authentication.
 */
export async function readClientRequest(stores: ClientRequestStores, req: ClientRequest, endpoint: EndpointContext, now: Date): Promise<{ params: FormParams; client: Client }> {
  const params = readForm(req);
  try {
    const { realm, audiences } = endpoint;
    const client = await authenticateClient({ clients: stores.clients, replays: stores.replays, realm, audiences, now }, req.headers.authorization, params);
    return { params, client };
  } catch (err) {
    if (err instanceof InvalidClient) {
      const actor = presentedClientId(req.headers.authorization, params);
      await stores.audit.record({ type: "client.authentication_failed", actor, details: { reason: err.message, ip: req.ip, path: req.path } });
    }
    throw err;
  }
}
