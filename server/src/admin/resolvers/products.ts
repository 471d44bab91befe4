/** API products and APIs. */
import { splitList } from "../../kernel/list.js";
import {
  apisOfProduct,
  createApi,
  createApiProduct,
  deleteApi,
  deleteApiProduct,
  listApiProducts,
  listApis,
  productsOfApi,
  updateApi,
  updateApiProduct,
} from "../../products/management.js";
import { check, checkOptional, upstreamUrl, v } from "../validation.js";
import type { Resolvers } from "./types.js";

interface ProductInput {
  name?: string;
  displayName?: string;
  description?: string;
  scopes?: string[];
  apiIds?: string[];
}

interface ApiInput {
  name?: string;
  upstreamUrl?: string;
  requiredScopes?: string[];
  passCookies?: boolean;
}

function productData(input: ProductInput) {
  return {
    name: checkOptional(v.productName, input.name, "name"),
    displayName: checkOptional(v.name, input.displayName, "displayName"),
    description: checkOptional(v.optionalText, input.description, "description"),
    scopes: checkOptional(v.scopes, input.scopes, "scopes"),
    apiIds: input.apiIds ?? undefined,
  };
}

/** @param allowLinkLocal - ALLOW_LINK_LOCAL_UPSTREAMS (the context's allowLinkLocalUpstreams). */
function apiData(input: ApiInput, allowLinkLocal: boolean) {
  return {
    name: checkOptional(v.apiName, input.name, "name"),
    upstreamUrl: checkOptional(upstreamUrl(allowLinkLocal), input.upstreamUrl, "upstreamUrl"),
    requiredScopes: checkOptional(v.scopes, input.requiredScopes, "requiredScopes"),
    passCookies: input.passCookies ?? undefined,
  };
}

export const productResolvers: Resolvers = {
  Query: {
    apiProducts: (_p, _a, { db }) => listApiProducts(db),
    apis: (_p, _a, { db }) => listApis(db),
  },
  Mutation: {
    createApiProduct: (_p, { input }: { input: ProductInput & { name: string } }, { db }) => {
      const data = productData(input);
      return createApiProduct(db, { ...data, name: check(v.productName, input.name, "name"), displayName: data.displayName ?? input.name });
    },
    updateApiProduct: (_p, { id, input }: { id: string; input: ProductInput }, { db }) => updateApiProduct(db, id, productData(input)),
    deleteApiProduct: async (_p, { id }: { id: string }, { db }) => {
      await deleteApiProduct(db, id);
      return id;
    },
    createApi: (_p, { input }: { input: ApiInput & { name: string; upstreamUrl: string } }, { db, allowLinkLocalUpstreams }) =>
      createApi(db, {
        ...apiData(input, allowLinkLocalUpstreams),
        name: check(v.apiName, input.name, "name"),
        upstreamUrl: check(upstreamUrl(allowLinkLocalUpstreams), input.upstreamUrl, "upstreamUrl"),
      }),
    updateApi: (_p, { id, input }: { id: string; input: ApiInput }, { db, allowLinkLocalUpstreams }) => updateApi(db, id, apiData(input, allowLinkLocalUpstreams)),
    deleteApi: async (_p, { id }: { id: string }, { db }) => {
      await deleteApi(db, id);
      return id;
    },
  },
  ApiProduct: {
    scopes: (p: { scopes: string }) => splitList(p.scopes),
    apis: (p: { id: string }, _a, { db }) => apisOfProduct(db, p.id),
  },
  Api: {
    requiredScopes: (a: { requiredScopes: string }) => splitList(a.requiredScopes),
    products: (a: { id: string }, _a, { db }) => productsOfApi(db, a.id),
  },
};
