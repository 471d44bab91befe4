/**
 * The Berlin Group NextGenPSD2 consent resources, "OAuth2 SCA approach", under `/psd2/v1`:
 * a TPP holding a client credentials token of an app approved for the type creates an
 * account information consent (`POST /consents`) or a SEPA payment
 * (`POST /payments/sepa-credit-transfers`), gets its id and an `scaOAuth` link to the
 * authorization server metadata, then has the PSU authorize it with `scope=AIS:<consentId>`
 * or `PIS:<paymentId>` at `/authorize` or through PAR (consents/requests.ts). It lives with
 * the gateway: like a gateway call, a TPP's call checked by its access token and sender constraint. Both routes,
 * these resources and RFC 9396 `authorization_details`, lead to one consent
 * (stores/psd2-consents.ts).
 *
 * Also: `GET /consents/{id}`, `GET /consents/{id}/status`, `DELETE /consents/{id}` (the TPP
 * terminates it, and its tokens are revoked), `GET /payments/sepa-credit-transfers/{id}` and
 * `.../status`. Only the TPP that created a resource reaches it.
 * Errors are Berlin Group's: `{"tppMessages": [{"category": "ERROR", "code", "text"}]}` with
 * FORMAT_ERROR (400), TOKEN_INVALID (401, with the RFC 6750 challenge), SERVICE_BLOCKED (403:
 * the app may not use the service), RESOURCE_UNKNOWN (404).
 */
import express, { Router, type Request, type Response } from "express";
import { BearerError, OAuthError } from "../kernel/errors.js";
import { contextOf } from "../kernel/request-context.js";
import { presentedAccessToken } from "../oauth/bearer.js";
import type { DpopSettings } from "../oauth/dpop-request.js";
import { findPresentedToken, type PresentedToken } from "../oauth/tokens.js";
import { checkSender } from "./sender.js";
import type { Stores } from "../stores/index.js";
import type { Psd2ConsentKind, Psd2ConsentRecord } from "../stores/psd2-consents.js";
import type { AccountInformation, AuthorizationDetail, PaymentInitiation } from "../consents/authorization-details.js";
import { InvalidAuthorizationDetails } from "../consents/authorization-details.js";
import { fromConsentRequest, fromPaymentRequest } from "../consents/berlin-group.js";
import { endConsent, statusAt, type Psd2ConsentState } from "../consents/lifecycle.js";
import { accessEndOf, detailsTypesOf } from "../consents/requests.js";

/** Settings of the router. */
export interface BerlinGroupApiOptions {
  realm: string;
  /** The public base URL (DPoP `htu`, and the resources' links). */
  baseUrl: string;
  /** The authorization server metadata URL: the `scaOAuth` link. */
  metadataUrl: string;
  dpop: DpopSettings;
}

/** A Berlin Group error answer. */
class TppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    text: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(text);
  }
}

/**
 * Berlin Group transaction status of a payment's consent (ISO 20022 codes) while the upstream
 * has not answered: received before the PSU's authorization, authorized (ACTC), pending while
 * forwarded or when its outcome is unknown (PDNG), rejected by the PSU, cancelled when the
 * consent ended unused. A payment the upstream answered reads as the upstream said
 * ({@link transactionStatusOf}).
 */
const TRANSACTION_STATUS: Record<Exclude<Psd2ConsentState, "consumed" | "paymentRejected">, string> = {
  received: "RCVD",
  valid: "ACTC",
  paymentPending: "PDNG",
  outcomeUnknown: "PDNG",
  rejected: "RJCT",
  revokedByPsu: "CANC",
  terminatedByTpp: "CANC",
  expired: "CANC",
};

/**
 * The transaction status of a payment's consent at `now`: the upstream's own answer once it
 * answered (a 2xx whose status could not be read: RCVD, received by the bank; a rejection:
 * RJCT), never one the gateway made up; else {@link TRANSACTION_STATUS}.
 */
function transactionStatusOf(consent: Psd2ConsentRecord, now: Date): string {
  const state = statusAt(consent, now);
  if (state === "consumed") return consent.transactionStatus ?? "RCVD";
  if (state === "paymentRejected") return consent.transactionStatus ?? "RJCT";
  return TRANSACTION_STATUS[state];
}

const PATHS = { account_information: "consents", payment_initiation: "payments/sepa-credit-transfers" } as const;

/** The Berlin Group consent body of account information details (the inverse of fromConsentRequest, accounts as approved or asked). */
function consentBody(detail: AccountInformation) {
  const accounts = detail.access.accounts ?? [];
  return {
    access: {
      ...(accounts.length > 0 ? { accounts } : {}),
      ...(detail.access.balances ? { balances: accounts } : {}),
      ...(detail.access.transactions ? { transactions: accounts } : {}),
      ...(detail.access.allAccounts ? { availableAccounts: "allAccounts" } : {}),
    },
    recurringIndicator: detail.recurringIndicator,
    validUntil: detail.validUntil,
    frequencyPerDay: detail.frequencyPerDay,
  };
}

/** The Berlin Group payment body of payment details. */
function paymentBody(detail: PaymentInitiation) {
  const { type: _type, ...payment } = detail;
  return payment;
}

/** Builds the router of `/psd2/v1`. */
export function berlinGroupRouter(stores: Pick<Stores, "tokens" | "clients" | "psd2Consents" | "audit">, options: BerlinGroupApiOptions): Router {
  const router = Router();
  const json = express.json({ limit: "16kb", type: () => true });

  /** The TPP's active client credentials token, checked as the gateway checks a call's. */
  async function tpp(req: Request): Promise<PresentedToken> {
    const presented = presentedAccessToken(req.headers.authorization, options.realm);
    const now = new Date();
    const token = await findPresentedToken(stores, presented.token, now);
    if (!token?.active) throw new BearerError(options.realm, 401, "invalid_token", "the access token is invalid, expired or revoked");
    // The proof names the whole URL: the router sees the path below its mount point (req.baseUrl).
    await checkSender(presented, token, req, options.baseUrl + req.baseUrl, options.dpop, options.realm, now);
    if (token.userId !== null) throw new TppError(401, "TOKEN_INVALID", "use a client credentials token of the TPP, not a PSU's token");
    const context = contextOf(req);
    if (context) context.clientId = token.clientId;
    return token;
  }

  /** The TPP's app id (the client record behind its token). */
  async function appIdOf(token: PresentedToken): Promise<string> {
    return (await stores.clients.byConsumerKey(token.clientId))!.appId;
  }

  /** The resource `id` of `kind`, when the TPP created it. @throws TppError 404 otherwise. */
  async function own(token: PresentedToken, kind: Psd2ConsentKind, id: string): Promise<Psd2ConsentRecord> {
    const consent = /^[a-z0-9]{1,64}$/.test(id) ? await stores.psd2Consents.find(id) : undefined;
    if (!consent || consent.kind !== kind || consent.appId !== (await appIdOf(token))) throw new TppError(404, "RESOURCE_UNKNOWN", "no such resource of this TPP");
    return consent;
  }

  /** Creates a `received` consent of `kind` from the body, for the TPP. */
  async function create(req: Request, res: Response, kind: Psd2ConsentKind, detail: (body: unknown) => AuthorizationDetail): Promise<void> {
    const token = await tpp(req);
    const client = await stores.clients.byConsumerKey(token.clientId);
    if (!client || !detailsTypesOf(client.products).includes(kind)) throw new TppError(403, "SERVICE_BLOCKED", `this app is not approved for ${kind}`);
    const details = [detail(req.body)];
    const consent = await stores.psd2Consents.create({ appId: client.appId, kind, origin: "berlin_group", requestedDetails: JSON.stringify(details), validUntil: accessEndOf(details) });
    await stores.audit.record({ type: "psd2_consent.created", actor: token.clientId, subject: consent.id, details: { kind }, request: contextOf(req) });
    const self = `${options.baseUrl}/psd2/v1/${PATHS[kind]}/${consent.id}`;
    const links = { scaOAuth: { href: options.metadataUrl }, self: { href: self }, status: { href: `${self}/status` } };
    res
      .status(201)
      .location(self)
      .json(kind === "payment_initiation" ? { transactionStatus: "RCVD", paymentId: consent.id, _links: links } : { consentStatus: "received", consentId: consent.id, _links: links });
  }

  router.post("/consents", json, (req, res) => create(req, res, "account_information", (body) => fromConsentRequest(body, new Date())));
  router.post("/payments/sepa-credit-transfers", json, (req, res) => create(req, res, "payment_initiation", fromPaymentRequest));

  router.get("/consents/:id", async (req: Request<{ id: string }>, res: Response) => {
    const consent = await own(await tpp(req), "account_information", req.params.id);
    const [detail] = JSON.parse(consent.approvedDetails ?? consent.requestedDetails) as AccountInformation[];
    res.json({ ...consentBody(detail!), consentStatus: statusAt(consent, new Date()), lastActionDate: consent.statusChangedAt.toISOString().slice(0, 10) });
  });
  router.get("/consents/:id/status", async (req: Request<{ id: string }>, res: Response) => {
    const consent = await own(await tpp(req), "account_information", req.params.id);
    res.json({ consentStatus: statusAt(consent, new Date()) });
  });
  router.delete("/consents/:id", async (req: Request<{ id: string }>, res: Response) => {
    const token = await tpp(req);
    const consent = await own(token, "account_information", req.params.id);
    if (!(await endConsent(stores, consent.id, ["received", "valid"], "terminatedByTpp", { at: new Date(), by: `client:${token.clientId}` }))) {
      throw new TppError(400, "CONSENT_INVALID", "the consent has already ended");
    }
    await stores.audit.record({ type: "psd2_consent.terminated", actor: token.clientId, subject: consent.id, request: contextOf(req) });
    res.status(204).end();
  });
  router.get("/payments/sepa-credit-transfers/:id", async (req: Request<{ id: string }>, res: Response) => {
    const consent = await own(await tpp(req), "payment_initiation", req.params.id);
    const [detail] = JSON.parse(consent.approvedDetails ?? consent.requestedDetails) as PaymentInitiation[];
    res.json({ ...paymentBody(detail!), transactionStatus: transactionStatusOf(consent, new Date()) });
  });
  router.get("/payments/sepa-credit-transfers/:id/status", async (req: Request<{ id: string }>, res: Response) => {
    const consent = await own(await tpp(req), "payment_initiation", req.params.id);
    res.json({ transactionStatus: transactionStatusOf(consent, new Date()) });
  });
  router.use(() => {
    throw new TppError(404, "RESOURCE_UNKNOWN", "no such resource");
  });

  // Every error in Berlin Group's format; OAuth errors keep their status and challenge.
  router.use((err: unknown, _req: Request, res: Response, next: (err: unknown) => void) => {
    const tpp =
      err instanceof TppError
        ? err
        : err instanceof InvalidAuthorizationDetails
          ? new TppError(400, "FORMAT_ERROR", err.message)
          : err instanceof BearerError
            ? new TppError(err.status, err.status === 401 ? "TOKEN_INVALID" : "SERVICE_BLOCKED", err.message, err.headers)
            : err instanceof OAuthError || (err as { type?: string }).type === "entity.parse.failed" || (err as { status?: number }).status === 413
              ? new TppError((err as { status: number }).status ?? 400, "FORMAT_ERROR", err instanceof OAuthError ? err.message : "the body is not JSON of at most 16 KiB")
              : undefined;
    if (!tpp) return next(err);
    res.status(tpp.status).set(tpp.headers).json({ tppMessages: [{ category: "ERROR", code: tpp.code, text: tpp.message }] });
  });
  return router;
}
