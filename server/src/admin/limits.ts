/**
 * Limits on the requests the admin API accepts, checked before any resolver runs, whoever
 * calls (anonymous callers included). The checks here take time linear in the document's
 * size; graphql-js's own validation is bounded by the token limit.
 *
 * - at most {@link MAX_BODY_BYTES} of JSON, which bounds the work on the variables;
 * - at most {@link MAX_TOKENS} tokens: graphql-js stops parsing there (`parseOptions.maxTokens`),
 *   which also bounds graphql-js's own validation rules (the costliest,
 *   OverlappingFieldsCanBeMerged, is quadratic in the number of fields);
 * - depth, aliases and directives: the validation rule {@link documentLimits}, and only
 *   operation types the schema has ({@link knownOperationTypes});
 * - estimated cost, with the request's variables: {@link operationCost}.
 *
 * A fragment is measured once per document and its measure reused at every spread. A
 * document whose fragments each spread the next two names 2^n paths in a few hundred bytes;
 * walking the paths one by one (as graphql-depth-limit and graphql-query-complexity do)
 * stalled the whole process for seconds (issue 13, H1).
 */
import {
  GraphQLError,
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  getArgumentValues,
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationRule,
} from "graphql";

/**
 * Largest request body, bytes: the console's largest is under 2 KB. It bounds the work of
 * reading the variables (a 100 KB list of ids took 20-30 ms to coerce).
 */
export const MAX_BODY_BYTES = 32 * 1024;
/**
 * Most tokens (names, punctuation, values) in one document: 7 times the console's largest
 * document (71) and 2.7 times the fullest introspection query of GraphQL tools (184). The
 * worst document this many tokens can make keeps graphql-js's own validation under about
 * 10 ms (its field-merging rule is quadratic: at 1000 tokens it took 20-40 ms).
 */
export const MAX_TOKENS = 500;
/** Deepest nesting below a root field (introspection fields, `__*`, do not count, as in graphql-depth-limit). */
export const MAX_DEPTH = 8;
/** Most aliased fields in one operation, counted once per spread of the fragment holding them. */
export const MAX_ALIASES = 20;
/** Most directives in one operation, counted the same way. */
export const MAX_DIRECTIVES = 20;
/** Highest estimated cost of one operation ({@link operationCost}). */
export const MAX_COST = 20_000;
/** A list field without `first` is costed as this many items. */
const UNBOUNDED_LIST_ITEMS = 5;

/**
 * A fragment's value, computed once per document and reused at every spread. A spread met
 * again while its own fragment is being measured (a cycle, which graphql-js's
 * NoFragmentCycles rule refuses in the same validation) and a spread of an unknown fragment
 * (refused by KnownFragmentNames) count as `empty`.
 * @param compute - the value of one fragment definition; may call the returned function for nested spreads.
 */
function perFragment<T>(fragment: (name: string) => FragmentDefinitionNode | null | undefined, empty: T, compute: (f: FragmentDefinitionNode) => T): (name: string) => T {
  const values = new Map<string, T>();
  const valueOf = (name: string): T => {
    const known = values.get(name);
    if (known !== undefined) return known;
    values.set(name, empty);
    const definition = fragment(name);
    const value = definition ? compute(definition) : empty;
    values.set(name, value);
    return value;
  };
  return valueOf;
}

/** What {@link documentLimits} measures of a selection set. */
interface Shape {
  /** Levels of fields with a selection below this one, introspection fields not counted. */
  depth: number;
  aliases: number;
  directives: number;
}

const NOTHING: Shape = { depth: 0, aliases: 0, directives: 0 };

/**
 * Validation rule refusing an operation nested deeper than {@link MAX_DEPTH} or using more
 * than {@link MAX_ALIASES} aliases or {@link MAX_DIRECTIVES} directives, counted in the
 * operation as executed (fragments expanded) but computed in one pass over the document.
 * A refusal is a validation error: HTTP 400, `GRAPHQL_VALIDATION_FAILED`.
 */
export const documentLimits: ValidationRule = (context) => {
  const shapeOf = (set: SelectionSetNode): Shape => {
    let depth = 0;
    let aliases = 0;
    let directives = 0;
    for (const selection of set.selections) {
      directives += selection.directives?.length ?? 0;
      let inner: Shape;
      if (selection.kind === Kind.FIELD) {
        if (selection.alias) aliases += 1;
        inner = selection.selectionSet ? shapeOf(selection.selectionSet) : NOTHING;
        const introspection = selection.name.value.startsWith("__");
        if (selection.selectionSet && !introspection) depth = Math.max(depth, 1 + inner.depth);
      } else {
        inner = selection.kind === Kind.INLINE_FRAGMENT ? shapeOf(selection.selectionSet) : fragmentShape(selection.name.value);
        depth = Math.max(depth, inner.depth);
      }
      aliases += inner.aliases;
      directives += inner.directives;
    }
    return { depth, aliases, directives };
  };
  const fragmentShape = perFragment(
    (name) => context.getFragment(name),
    NOTHING,
    (f) => {
      const shape = shapeOf(f.selectionSet);
      return { ...shape, directives: shape.directives + (f.directives?.length ?? 0) };
    },
  );
  return {
    OperationDefinition(operation) {
      const shape = shapeOf(operation.selectionSet);
      const directives = shape.directives + (operation.directives?.length ?? 0);
      const refuse = (message: string) => context.reportError(new GraphQLError(message, { nodes: operation }));
      if (shape.depth > MAX_DEPTH) refuse(`query too deep (${shape.depth} levels > ${MAX_DEPTH})`);
      if (shape.aliases > MAX_ALIASES) refuse(`too many aliases (${shape.aliases} > ${MAX_ALIASES})`);
      if (directives > MAX_DIRECTIVES) refuse(`too many directives (${directives} > ${MAX_DIRECTIVES})`);
    },
  };
};

/**
 * Validation rule refusing an operation type the schema lacks (a subscription), which
 * graphql-js 16 would only fail at execution, as an internal error (graphql-js 17's
 * KnownOperationTypesRule).
 */
export const knownOperationTypes: ValidationRule = (context) => ({
  OperationDefinition(operation) {
    if (!context.getSchema().getRootType(operation.operation)) {
      context.reportError(new GraphQLError(`this API has no ${operation.operation} operations`, { nodes: operation }));
    }
  },
});

/** The field `name` of `parent`, meta-fields included. */
function fieldOf(parent: GraphQLNamedType | undefined, name: string): GraphQLField<unknown, unknown> | undefined {
  if (name === TypeNameMetaFieldDef.name) return TypeNameMetaFieldDef;
  if (name === SchemaMetaFieldDef.name) return SchemaMetaFieldDef;
  if (name === TypeMetaFieldDef.name) return TypeMetaFieldDef;
  return isObjectType(parent) ? parent.getFields()[name] : undefined;
}

/**
 * The estimated cost of running a validated operation: 1 per field, plus its children's
 * cost once, or `first` times when the field takes `first`, or 5 times for a list without
 * it. Every selection counts, `@skip` and `@include` notwithstanding.
 * @param variables - the coerced variable values (graphql's `getVariableValues`).
 * @returns the cost, at most Number.MAX_SAFE_INTEGER.
 * @throws GraphQLError when an argument cannot take its value (a null variable for a non-null argument).
 */
export function operationCost(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variables: Record<string, unknown>): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const costOf = (set: SelectionSetNode, parent: GraphQLNamedType | undefined): number => {
    let total = 0;
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const field = fieldOf(parent, selection.name.value);
        if (!field) continue;
        const children = selection.selectionSet ? costOf(selection.selectionSet, getNamedType(field.type)) : 0;
        const { first } = getArgumentValues(field, selection, variables);
        // A `first` below 1 is refused by the resolver; counting it as 0 keeps it from offsetting other fields.
        const items = typeof first === "number" ? Math.max(first, 0) : isListType(getNullableType(field.type)) ? UNBOUNDED_LIST_ITEMS : 1;
        total += 1 + children * items;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        total += costOf(selection.selectionSet, selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent);
      } else {
        total += fragmentCost(selection.name.value);
      }
    }
    return Math.min(total, Number.MAX_SAFE_INTEGER);
  };
  const fragmentCost = perFragment(
    (name) => fragments.get(name),
    0,
    (f) => costOf(f.selectionSet, schema.getType(f.typeCondition.name.value)),
  );
  return costOf(operation.selectionSet, schema.getRootType(operation.operation) ?? undefined);
}
