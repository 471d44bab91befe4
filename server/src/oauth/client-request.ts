/**
 * The common first steps of the token, revocation and introspection endpoints: a strict
 * form body and client authentication (HTTP Basic or the form's client_id and
 * client_secret), with failed authentications written to the audit log.
 */
import type { IncomingMessage } from "node:http";
import type { Stores } from "../stores/index.js";
import { authenticateClient, presentedClientId, type Client } from "./client-auth.js";
import { InvalidClient } from "../kernel/errors.js";
import { readForm, type FormParams } from "./form.js";

/** A request to the token, revocation or introspection endpoint, with its form body text, client IP and path. */
export type ClientRequest = IncomingMessage & { body?: unknown; ip: string; path: string };

/**
 * @param stores - the clients, and the audit log for failures.
 * @returns the form parameters and the authenticated client.
 * @throws InvalidRequest for a bad form or two client authentication methods; InvalidClient
 *   (401) for failed client authentication.
 */
export async function readClientRequest(stores: Pick<Stores, "clients" | "audit">, req: ClientRequest, realm: string, now: Date): Promise<{ params: FormParams; client: Client }> {
  const params = readForm(req);
  try {
    return { params, client: await authenticateClient(stores.clients, req.headers.authorization, params, realm, now) };
  } catch (err) {
    if (err instanceof InvalidClient) {
      const actor = presentedClientId(req.headers.authorization, params);
      await stores.audit.record({ type: "client.authentication_failed", actor, details: { reason: err.message, ip: req.ip, path: req.path } });
    }
    throw err;
  }
}
