import { graphql, type Document, type Variables } from "../api/graphql";

/**
 * Sends a mutation whose answer is one root field (`setAppKeys`, `renameApp`...), passes that
 * field's value to `apply` (e.g. the page's setter of the changed app) and resolves to it.
 * @throws GraphQLRequestError as graphql() does; `apply` is then not called.
 */
export async function applyMutation<TField extends string, TResult, TVariables extends Variables>(
  document: Document<{ [K in TField]: TResult }, TVariables>,
  variables: TVariables,
  apply: (result: TResult) => void,
): Promise<TResult> {
  const data: { [K in TField]: TResult } = await (graphql as (d: typeof document, v: TVariables) => Promise<{ [K in TField]: TResult }>)(document, variables);
  const [result] = Object.values<TResult>(data);
  apply(result);
  return result;
}
