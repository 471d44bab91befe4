/**
 * The common first steps of the token, PAR, revocation and introspection endpoints: a
 * strict form body and client authentication (HTTP Basic, the form's client_id and
 * client_secret, or a client assertion). A failed authentication is audited where the error
 * becomes the answer (http/refusals.ts: aggregated, so a flood writes a bounded number of rows).
 */
import type { AddressPolicy } from "../kernel/addresses.js";
import type { IncomingMessage } from "node:http";
import type { Stores } from "../stores/index.js";
import { presentedCertificate } from "../certificates/presented.js";
import { authenticateClient, type Client, type MtlsSettings } from "./client-auth.js";
import { InvalidRequest } from "../kernel/errors.js";
import { contextOf } from "../kernel/request-context.js";
import { readForm, type FormParams } from "./form.js";
import { inSpan } from "../kernel/spans.js";

/** A request to the token, PAR, revocation or introspection endpoint, with its form body text, client IP and path. */
export type ClientRequest = IncomingMessage & { body?: unknown; ip: string; path: string };

/** Where a client-authenticated endpoint is and whose it is. */
export interface EndpointContext {
  /** Realm of `WWW-Authenticate` challenges. */
  realm: string;
  /** The issuer identifier (RFC 8414 `issuer`): also the one `aud` a client assertion may carry (FAPI 2.0 §5.3.2.1). */
  issuer: string;
  /** This endpoint's URL. */
  url: string;
  /** BASE_URL, where the gateway serves the APIs: the resources a `resource` may name (RFC 8707). */
  baseUrl: string;
  /** What mutual-TLS client authentication checks certificates against (RFC 8705 §2). */
  mtls: MtlsSettings;
  /** Where a fetch of a client's `jwks_uri` may connect (OUTBOUND_ALLOW_PRIVATE_ADDRESSES). */
  tppAddresses: AddressPolicy;
}

/** The stores client authentication reads and writes. */
export type ClientRequestStores = Pick<Stores, "clients" | "replays">;

/**
 * @param stores - the clients and used assertion ids.
 * @returns the form parameters and the authenticated client, whose id is also set on the
 *   request context (kernel/request-context.ts) for the request log, refusal audit and metrics.
 * @throws InvalidRequest for a bad form, two client authentication methods, or a body
 *   `client_id` that is not the authenticated client's (e.g. beside HTTP Basic or a client
 *   assertion of another client; RFC 6749 §3.2.1, RFC 7009 §2.1, RFC 7662 §2.1); InvalidClient
 *   (401) for failed client authentication, naming the client when its id is registered.
 */
export async function readClientRequest(stores: ClientRequestStores, req: ClientRequest, endpoint: EndpointContext, now: Date): Promise<{ params: FormParams; client: Client }> {
  const params = readForm(req);
  const { realm, issuer, mtls, tppAddresses } = endpoint;
  const certificate = presentedCertificate(req);
  const client = await inSpan("client authentication", () =>
    authenticateClient({ clients: stores.clients, replays: stores.replays, realm, issuer, now, certificate, mtls, tppAddresses }, req.headers.authorization, params),
  );
  const request = contextOf(req);
  if (request) request.clientId = client.clientId;
  if (params.client_id !== undefined && params.client_id !== client.clientId) throw new InvalidRequest("client_id does not match the authenticated client");
  return { params, client };
}
