/**
 * `GET /oauth2/v1/jwks`: the JWK Set (RFC 7517 §5) of this server's signing keys, next,
 * current and retired (keys/rotation.ts), `jwks_uri` in its metadata (RFC 8414 §2). Cached
 * by clients for JWKS_MAX_AGE_SECONDS, which a new key's publication lead covers.
 */
import type { NextFunction, Request, Response } from "express";
import { OAuthError } from "../kernel/errors.js";
import type { Keyring } from "./keyring.js";

/**
 * The Express handler.
 * @param maxAgeSeconds - `Cache-Control: max-age` (JWKS_MAX_AGE_SECONDS).
 * @returns 200 `application/jwk-set+json`; 503 `temporarily_unavailable` while the keys could not be read yet.
 */
export function jwksEndpoint(keyring: Keyring, maxAgeSeconds: number) {
  return async (_req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      await keyring.ready();
    } catch {
      next(new OAuthError("temporarily_unavailable", "the signing keys cannot be read now", 503));
      return;
    }
    res.set("Cache-Control", `public, max-age=${maxAgeSeconds}`).type("application/jwk-set+json").send(JSON.stringify(keyring.jwks()));
  };
}
