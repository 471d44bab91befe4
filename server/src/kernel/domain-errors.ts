/**
 * Errors the stores and the admin use cases throw for a request that cannot be carried
 * out as asked, whatever the database: the admin API maps them to GraphQL codes in one place
 * (admin/graphql.ts), so no database error code reaches a caller.
 */

/** The record named does not exist (GraphQL NOT_FOUND). */
export class NotFound extends Error {
  constructor(message: string) {
    super(message);
    this.name = "NotFound";
  }
}

/** The change conflicts with the stored state: a unique value taken, a record still in use (GraphQL CONFLICT). */
export class Conflict extends Error {
  constructor(message: string) {
    super(message);
    this.name = "Conflict";
  }
}

/** A value refers to a record that does not exist, e.g. an unknown product id in a list (GraphQL BAD_USER_INPUT). */
export class UnknownReference extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnknownReference";
  }
}
