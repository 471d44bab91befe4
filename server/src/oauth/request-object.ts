/**
 * Request objects (RFC 9101, JAR; FAPI 2.0 Message Signing §5.3.1): the authorization
 * parameters as a JWT the client signed with a key it registered, sent as `request` to the
 * PAR endpoint or by value to `/authorize`. Only the request object's parameters count.
 */
import type { JWTPayload } from "jose";
import { OAuthError } from "../kernel/errors.js";
import { hashSecret } from "../kernel/secrets.js";
import type { AddressPolicy } from "../kernel/addresses.js";
import type { ClientRecord } from "../stores/clients.js";
import type { ReplayStore } from "../stores/replays.js";
import { AppJwtRefused, MAX_CLOCK_SKEW_SECONDS, verifyAppJwt, type AssertionKeys } from "./client-assertion.js";

/** Longest request object accepted, in characters: its parameters, authorization details included, signed. */
export const MAX_REQUEST_OBJECT_LENGTH = 16_384;

/** The longest a request object may be valid, seconds: `exp` at most this after `nbf` (FAPI 2.0 Message Signing §5.3.1 item 3). */
export const MAX_REQUEST_OBJECT_LIFETIME_SECONDS = 3600;

/** Longest `jti` accepted: it is kept (hashed) until the request object expires. */
const MAX_JTI_LENGTH = 256;

/** The JWT claims of a request object that are not authorization parameters. */
const JWT_CLAIMS = new Set(["iss", "aud", "exp", "nbf", "iat", "jti", "sub"]);

/** `invalid_request_object` (RFC 9101 §6.3): the request object is not one this server takes. */
export class InvalidRequestObject extends OAuthError {
  constructor(description: string) {
    super("invalid_request_object", description);
  }
}

/** What a request object is checked against. */
export interface RequestObjectContext {
  /** The client it must come from (`iss`, and `client_id` when present). */
  clientId: string;
  /** The app's registered keys. */
  keys: AssertionKeys;
  /** The issuer identifier: the `aud` (RFC 9101 §4; FAPI 2.0 Message Signing §5.3.1 item 2). */
  issuer: string;
  /** Where used `jti` values are remembered until the object expires: each is good once. */
  replays: ReplayStore;
  now: Date;
}

/** A parameter's value as the authorization endpoint reads it: JSON members that are objects or arrays (`authorization_details`, `claims`) as their JSON text, numbers (`max_age`) as decimal text. */
function parameterValue(name: string, value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "object" && value !== null) return JSON.stringify(value);
  throw new InvalidRequestObject(`the request object's ${name.slice(0, 40)} must be a string, a number, an object or an array`);
}

/**
 * Verifies a request object and reads its authorization parameters (RFC 9101 §4, §6; FAPI
 * 2.0 Message Signing §5.3.1): at most {@link MAX_REQUEST_OBJECT_LENGTH} characters, signed
 * with a key of the app (PS256, ES256 or EdDSA; never `none` nor an HMAC); `iss` the client;
 * `aud` the issuer identifier (a string, or an array holding it); `exp` and `nbf` present,
 * `exp` at most {@link MAX_REQUEST_OBJECT_LIFETIME_SECONDS} after `nbf`, `nbf` at most
 * {@link MAX_CLOCK_SKEW_SECONDS} in the future and `exp` not past; a `jti`, used once; a
 * `client_id` member, if any, the client's.
 * @returns its parameters (the claims but the JWT's own), each as text.
 * @throws InvalidRequestObject (400 `invalid_request_object`) for every failure.
 */
export async function requestObjectParameters(jwt: string, ctx: RequestObjectContext): Promise<Record<string, string>> {
  let claims: JWTPayload;
  try {
    claims = await verifyAppJwt(jwt, ctx.keys, ctx.now, "the request object", MAX_REQUEST_OBJECT_LENGTH);
  } catch (error) {
    throw error instanceof AppJwtRefused ? new InvalidRequestObject(error.message) : error;
  }
  const { iss, aud, exp, nbf, jti } = claims;
  if (iss !== ctx.clientId) throw new InvalidRequestObject("the request object's iss must be the client_id");
  if (!(aud === ctx.issuer || (Array.isArray(aud) && aud.includes(ctx.issuer)))) throw new InvalidRequestObject(`the request object's aud must be this server's issuer identifier, ${ctx.issuer}`);
  if (typeof exp !== "number" || typeof nbf !== "number") throw new InvalidRequestObject("the request object needs exp and nbf claims");
  if (exp - nbf > MAX_REQUEST_OBJECT_LIFETIME_SECONDS) throw new InvalidRequestObject(`the request object's exp may be at most ${MAX_REQUEST_OBJECT_LIFETIME_SECONDS} seconds after its nbf`);
  if (typeof jti !== "string" || jti.length < 1 || jti.length > MAX_JTI_LENGTH) throw new InvalidRequestObject(`the request object needs a jti of 1 to ${MAX_JTI_LENGTH} characters`);
  const parameters: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(claims)) {
    if (!JWT_CLAIMS.has(name)) parameters[name] = parameterValue(name, value);
  }
  if (parameters.client_id !== undefined && parameters.client_id !== ctx.clientId) throw new InvalidRequestObject("the request object's client_id must be the client's");
  if (parameters.request !== undefined || parameters.request_uri !== undefined) throw new InvalidRequestObject("a request object may not hold request or request_uri (RFC 9101 section 4)");
  // Checked last: a request object refused for anything else is not used up.
  if (!(await ctx.replays.firstUse(hashSecret(`request-object:${ctx.clientId}:${jti}`), new Date(exp * 1000), ctx.now))) {
    throw new InvalidRequestObject("the request object was already used (jti replay)");
  }
  return parameters;
}

/**
 * Reads a client's request object: {@link requestObjectParameters} with the client's keys.
 * @throws InvalidRequestObject as it does.
 */
export type RequestObjects = (jwt: string, client: Pick<ClientRecord, "clientId" | "jwks" | "jwksUri">, now: Date) => Promise<Record<string, string>>;

/**
 * The {@link RequestObjects} of this server.
 * @param issuer - the issuer identifier, the `aud` of every request object.
 * @param replays - where used `jti` values are kept.
 * @param addresses - where a fetch of a client's `jwks_uri` may connect (OUTBOUND_ALLOW_PRIVATE_ADDRESSES).
 */
export function requestObjects(issuer: string, replays: ReplayStore, addresses: AddressPolicy): RequestObjects {
  return (jwt, client, now) => requestObjectParameters(jwt, { clientId: client.clientId, keys: { jwks: client.jwks, jwksUri: client.jwksUri, addresses }, issuer, replays, now });
}
