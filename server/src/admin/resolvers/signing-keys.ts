/** This server's signing keys: the list (never a private half, nor where it is) and the rotation on demand. */
import { signsFrom } from "../../keys/rotation.js";
import type { Resolvers } from "../generated/resolvers.js";
import { rotateSigningKey } from "../use-cases/signing-keys.js";
import { adminEvent } from "./audit.js";

/** Resolvers of the signing keys. */
export const signingKeyResolvers: Resolvers = {
  Query: {
    // The database's keys rather than the keyring's copy: another instance may have rotated since this one read them.
    signingKeys: (_p, _a, { db }) => db.signingKeys.list(),
  },
  Mutation: {
    rotateSigningKey: (_p, args, ctx, info) => rotateSigningKey(ctx.db, ctx.keyring, ctx.rotation, { alg: args.alg, audit: adminEvent(args, ctx, info) }),
  },
  SigningKey: {
    signsFrom: (k, _a, { rotation }) => (k.state === "next" ? signsFrom(k, rotation) : null),
    publicJwk: (k) => JSON.stringify(k.publicJwk),
  },
};
