/**
 * Resource indicators (RFC 8707): the resource servers an access token is meant for, its
 * audience. Here a resource server is an API behind the gateway, named by its URL,
 * `<BASE_URL>/<API name>`; a client may ask only for an API one of its approved API products
 * grants. A token with an audience works only at those APIs (gateway/access.ts); without one,
 * at every API of its products, as before.
 */
import { InvalidTarget } from "../kernel/errors.js";
import type { CatalogStore } from "../stores/catalog.js";
import type { ClientRecord } from "../stores/clients.js";

/** Most `resource` values one request may carry: each is looked up in the catalog. */
export const MAX_RESOURCES = 10;

/** Where the resources live: the gateway's public URL and the catalog of its APIs. */
export interface ResourceServers {
  /** BASE_URL, without a trailing slash. */
  baseUrl: string;
  catalog: Pick<CatalogStore, "apiRoute">;
}

/** The resource URI of the API named `apiName`. */
export function resourceUri(baseUrl: string, apiName: string): string {
  return `${baseUrl}/${apiName}`;
}

/**
 * Reads the `resource` parameter (RFC 8707 §2), repeated values joined by spaces (oauth/form.ts).
 * @param value - the parameter; undefined when the request has none.
 * @returns the resource URIs, without repeats; undefined when none was asked for.
 * @throws InvalidTarget for more than {@link MAX_RESOURCES} values, a value that is not an
 *   absolute URI or has a fragment (§2), or a URI that is no API one of the client's approved
 *   products grants.
 */
export async function requestedResources(value: string | undefined, client: Pick<ClientRecord, "products">, servers: ResourceServers): Promise<string[] | undefined> {
  if (value === undefined) return undefined;
  const uris = [...new Set(value.split(" ").filter((v) => v !== ""))];
  if (uris.length > MAX_RESOURCES) throw new InvalidTarget(`at most ${MAX_RESOURCES} resource values may be given`);
  for (const uri of uris) {
    if (!URL.canParse(uri) || uri.includes("#")) throw new InvalidTarget("resource must be an absolute URI without a fragment");
    const prefix = `${servers.baseUrl}/`;
    const name = uri.startsWith(prefix) ? uri.slice(prefix.length) : "";
    const api = name === "" || name.includes("/") ? undefined : await servers.catalog.apiRoute(name);
    if (!api || !client.products.some((p) => api.productNames.includes(p.name))) {
      throw new InvalidTarget(`resource ${uri} is not an API of this client's API products`);
    }
  }
  return uris;
}

/**
 * The audience of a token from a grant that already has one (a code's request, a refresh
 * token's grant): the one asked for now, which may narrow it, never widen it (RFC 8707 §2.2).
 * @param asked - what {@link requestedResources} read from the token request.
 * @param granted - the grant's resources; null or undefined: the grant named none.
 * @throws InvalidTarget when `asked` names a resource the grant does not hold.
 */
export function narrowedAudience(asked: readonly string[] | undefined, granted: readonly string[] | null | undefined): readonly string[] | undefined {
  if (asked === undefined) return granted ?? undefined;
  if (granted) {
    const outside = asked.find((uri) => !granted.includes(uri));
    if (outside !== undefined) throw new InvalidTarget(`resource ${outside} was not part of the authorization request`);
  }
  return asked;
}
