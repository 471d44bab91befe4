/** The grant types the token endpoint supports, by `grant_type` value. Adding a grant is adding a file here. */
import { authorizationCodeGrant } from "./authorization-code.js";
import { clientCredentialsGrant } from "./client-credentials.js";
import type { Grant } from "./grant.js";
import { refreshTokenGrant } from "./refresh-token.js";

export const grants: ReadonlyMap<string, Grant> = new Map(
  [clientCredentialsGrant, authorizationCodeGrant, refreshTokenGrant].map((g) => [g.type, g]),
);
