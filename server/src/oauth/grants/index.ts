/** The grant types the token endpoint supports, by `grant_type` value. Adding a grant is adding a file here. */
import { clientCredentialsGrant } from "./client-credentials.js";
import type { Grant } from "./grant.js";

export const grants: ReadonlyMap<string, Grant> = new Map([clientCredentialsGrant].map((g) => [g.type, g]));
