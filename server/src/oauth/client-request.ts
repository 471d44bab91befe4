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
import { contextOf } from "../kernel/request-context.js";
import { readForm, type FormParams } from "./form.js";
import { inSpan } from "../kernel/spans.js";

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
 * @throws InvalidRequest for a bad form or two client authentication methods; InvalidClient
 *   (401) for failed client authentication, naming the client when its id is registered.
 */
export async function readClientRequest(stores: ClientRequestStores, req: ClientRequest, endpoint: EndpointContext, now: Date): Promise<{ params: FormParams; client: Client }> {
  const params = readForm(req);
  const { realm, audiences, mtls, tppAddresses } = endpoint;
  const certificate = presentedCertificate(req);
  const client = await inSpan("client authentication", () =>
    authenticateClient({ clients: stores.clients, replays: stores.replays, realm, audiences, now, certificate, mtls, tppAddresses }, req.headers.authorization, params),
  );
  const request = contextOf(req);
  if (request) request.clientId = client.clientId;
  return { params, client };
}
