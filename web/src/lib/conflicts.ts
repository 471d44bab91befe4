/** The server's CONFLICT refusals (something is still in use) as the console explains them. */
import { GraphQLRequestError } from "../api/graphql";
import { errorMessage, FormInputError } from "./useGraphQL";

/**
 * Waits for `call` (a mutation the server may refuse with CONFLICT, e.g. deleting an
 * organization that still has developers) and turns that refusal into a message saying what
 * to do: the server's words, then `advice` ("The organization still has developers. Delete
 * its developers first."). Other errors pass through.
 * @throws FormInputError for a CONFLICT, else what `call` threw.
 */
export async function explainingConflict<T>(call: Promise<T>, advice: string): Promise<T> {
  try {
    return await call;
  } catch (err) {
    if (err instanceof GraphQLRequestError && err.code === "CONFLICT") throw new FormInputError(`${errorMessage(err)} ${advice}`);
    throw err;
  }
}
