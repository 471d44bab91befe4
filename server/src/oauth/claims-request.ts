/**
 * The `claims` authorization request parameter (OpenID Connect Core 1.0 §5.5): which claims
 * the relying party asks for, in the ID token and at UserInfo. This server acts on one of
 * them, the ID token's `acr` (§5.5.1.1): a requested value that means strong customer
 * authentication makes the sign-in need two factors, and an essential request that no value
 * of this server can meet is refused. Other claims are answered by scope (§5.4) and their
 * requests ignored, as §5.5 allows.
 */
import { InvalidRequest } from "../kernel/errors.js";
import { parseStrictJson, StrictJsonError, isJsonObject } from "../kernel/strict-json.js";

/** Longest `claims` parameter accepted, in characters. */
export const MAX_CLAIMS_LENGTH = 4096;

/** The ID token's `acr` as requested (§5.5.1.1): whether it is essential, and the values asked for. */
export interface AcrRequest {
  essential: boolean;
  /** `value`, or the string members of `values`, in order; empty: any. */
  values: string[];
}

/** What this server takes from a `claims` parameter. */
export interface ClaimsRequest {
  /** The ID token's `acr` request; null when none. */
  acr: AcrRequest | null;
}


/**
 * One claim's request (§5.5.1): `null`, or an object whose `essential` is a boolean and whose
 * `values` is an array when present.
 * @throws InvalidRequest naming the claim when it is neither.
 */
function claimRequest(name: string, request: unknown): { essential: boolean; values: unknown[] } {
  if (request === null) return { essential: false, values: [] };
  if (!isJsonObject(request)) throw new InvalidRequest(`claims: the request of ${name.slice(0, 40)} must be null or an object`);
  const { essential, value, values } = request;
  if (essential !== undefined && typeof essential !== "boolean") throw new InvalidRequest(`claims: essential of ${name.slice(0, 40)} must be true or false`);
  if (values !== undefined && !Array.isArray(values)) throw new InvalidRequest(`claims: values of ${name.slice(0, 40)} must be an array`);
  return { essential: essential === true, values: value !== undefined ? [value] : (values ?? []) };
}

/**
 * Parses a `claims` parameter: a JSON object (duplicate member names refused) of at most
 * {@link MAX_CLAIMS_LENGTH} characters whose `userinfo` and `id_token` members, when present,
 * are objects of claim requests (§5.5.1). Other top-level members are ignored (§5.5).
 * @throws InvalidRequest describing what is malformed.
 */
export function parseClaimsRequest(text: string): ClaimsRequest {
  if (text.length > MAX_CLAIMS_LENGTH) throw new InvalidRequest(`claims may have at most ${MAX_CLAIMS_LENGTH} characters`);
  let parsed: unknown;
  try {
    parsed = parseStrictJson(text);
  } catch (error) {
    throw new InvalidRequest(error instanceof StrictJsonError ? `claims is not valid JSON: ${error.message}` : "claims is not valid JSON");
  }
  if (!isJsonObject(parsed)) throw new InvalidRequest("claims must be a JSON object (OpenID Connect Core section 5.5)");
  let acr: AcrRequest | null = null;
  for (const target of ["userinfo", "id_token"] as const) {
    const requests = parsed[target];
    if (requests === undefined) continue;
    if (!isJsonObject(requests)) throw new InvalidRequest(`claims: ${target} must be an object of claim requests`);
    for (const [name, request] of Object.entries(requests)) {
      const checked = claimRequest(name, request);
      if (target === "id_token" && name === "acr") acr = { essential: checked.essential, values: checked.values.filter((v): v is string => typeof v === "string") };
    }
  }
  return { acr };
}
