/** Resolver map shape shared by the per-domain resolver modules. */
import type { AdminContext } from "../context.js";

// Resolvers receive GraphQL-validated arguments; each module types the ones it reads.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Resolver = (parent: any, args: any, ctx: AdminContext) => unknown;

export type Resolvers = Record<string, Record<string, Resolver>>;
