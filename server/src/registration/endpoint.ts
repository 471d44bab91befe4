/**
 * The dynamic client registration endpoint (RFC 7591 §3) at `POST /oauth2/v1/register`, and each
 * registered client's configuration endpoint (RFC 7592 §2) at `/oauth2/v1/register/<client_id>`:
 * GET, PUT and DELETE with the client's registration access token as a Bearer token (RFC 6750).
 *
 * With the mutual-TLS listener on, a registration needs a TLS client certificate that chains to
 * the bank's CAs (PSD2 RTS Art. 34): its PSD2 roles bound the registration's. Answers carry
 * `Cache-Control: no-store` (they may hold secrets).
 */
import express, { Router, type NextFunction, type Request, type Response } from "express";
import { presentedCertificate, type PresentedCertificate } from "../certificates/presented.js";
import { verifyCertificateChain, type TrustStore } from "../certificates/trust.js";
import type { AddressPolicy } from "../kernel/addresses.js";
import { BearerError, InvalidClient, MethodNotAllowed } from "../kernel/errors.js";
import { contextOf } from "../kernel/request-context.js";
import { bearerToken } from "../oauth/bearer.js";
import type { Database } from "../stores/index.js";
import { deleteClient, readClient, registerClient, registeredClient, updateClient, type RegistrationSettings } from "./clients.js";
import { sectorFetch } from "./sector-identifier.js";

/** Largest registration request body, in bytes: statements are at most 16 KiB, JWK Sets a few. */
const BODY_LIMIT = "64kb";

const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" };

/** What the endpoints need besides the stores and the address policy of TPP URLs. */
export interface RegistrationEndpointSettings extends Omit<RegistrationSettings, "fetchSector"> {
  realm: string;
  /** A registration must present a TLS client certificate (the mutual-TLS listener is on). */
  certificateRequired: boolean;
  /** The CAs a registering certificate must chain to (TLS_CLIENT_CA); undefined: none configured. */
  trust: TrustStore | undefined;
}

/**
 * The registering request's client certificate, trusted under `settings.trust`.
 * @throws InvalidClient (401) when a certificate is required and missing, or is not trusted.
 */
async function registeringCertificate(req: Request, settings: RegistrationEndpointSettings, now: Date): Promise<PresentedCertificate | undefined> {
  const presented = presentedCertificate(req);
  if (!presented) {
    if (settings.certificateRequired) throw new InvalidClient("registration needs a TLS client certificate: your eIDAS certificate (PSD2 RTS Art. 34)", settings.realm);
    return undefined;
  }
  if (settings.trust) {
    const verdict = await verifyCertificateChain(presented.certificate, settings.trust, { now, presented: presented.intermediates });
    if (!verdict.trusted) throw new InvalidClient(`the TLS client certificate is not trusted (${verdict.reason})`, settings.realm);
  }
  return presented;
}

/**
 * The router of the registration and client configuration endpoints, mounted at REGISTRATION_PATH.
 * @param tppAddresses - where a fetch of a `sector_identifier_uri` may connect
 *   (OUTBOUND_ALLOW_PRIVATE_ADDRESSES, kernel/addresses.ts), as a `jwks_uri`'s.
 */
export function registrationRouter(db: Database, endpointSettings: RegistrationEndpointSettings, tppAddresses: AddressPolicy): Router {
  const settings = { ...endpointSettings, fetchSector: sectorFetch(tppAddresses) };
  const router = Router();
  router.use(express.json({ limit: BODY_LIMIT }));
  const requested = (req: Request) => ({ now: new Date(), request: contextOf(req) });

  /** The client of a configuration request, authenticated by its registration access token. @throws BearerError 401 invalid_token */
  async function configured(req: Request<{ clientId: string }>) {
    const token = bearerToken(req.headers.authorization, settings.realm);
    const client = await registeredClient(db, req.params.clientId, token, settings.endpointUrl);
    if (!client) throw new BearerError(settings.realm, 401, "invalid_token", "the registration access token is not this client's, or the client was deleted");
    return client;
  }

  router.post("/", async (req: Request, res: Response) => {
    const o = requested(req);
    const certificate = await registeringCertificate(req, settings, o.now);
    res.status(201).set(NO_STORE).json(await registerClient(db, req.body, settings, certificate, o));
  });
  router.get("/:clientId", async (req: Request<{ clientId: string }>, res: Response) => {
    res.set(NO_STORE).json(readClient(await configured(req)));
  });
  router.put("/:clientId", async (req: Request<{ clientId: string }>, res: Response) => {
    const client = await configured(req);
    const o = requested(req);
    res.set(NO_STORE).json(await updateClient(db, client, req.body, settings, presentedCertificate(req), o));
  });
  router.delete("/:clientId", async (req: Request<{ clientId: string }>, res: Response) => {
    await deleteClient(db, await configured(req), requested(req));
    res.status(204).end();
  });
  router.all("/", (_req: Request, _res: Response, next: NextFunction) => next(new MethodNotAllowed(["POST"])));
  router.all("/:clientId", (_req: Request, _res: Response, next: NextFunction) => next(new MethodNotAllowed(["GET", "PUT", "DELETE"])));
  return router;
}
