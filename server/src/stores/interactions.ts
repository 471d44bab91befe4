/**
 * Interactions: the server-side state of one authorization request between /authorize and
 * the redirect back to the client (login -> consent -> done).
 */

/** login -> consent -> done */
export type InteractionStage = "login" | "consent" | "done";

export interface InteractionRecord {
  id: string;
  appId: string;
  redirectUri: string;
  scopes: string[];
  state: string | null;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  prompt: string | null;
  /** RFC 9449 §10: the DPoP key thumbprint the code will be bound to; null when unbound. */
  dpopJkt: string | null;
  stage: InteractionStage;
  userId: string | null;
  expiresAt: Date;
}

/** A new interaction: everything but the id. */
export type NewInteraction = Omit<InteractionRecord, "id">;

export interface InteractionStore {
  create(interaction: NewInteraction): Promise<InteractionRecord>;
  /** @returns undefined when unknown. */
  find(id: string): Promise<InteractionRecord | undefined>;
  /**
   * Moves an interaction from stage `from` to `to` (optionally binding the user), only if it
   * is still at `from`: the guard that makes each stage answerable once.
   * @returns false when another request moved it first.
   */
  advance(id: string, from: InteractionStage, to: InteractionStage, userId?: string): Promise<boolean>;
  /** Deletes up to `limit` interactions that expired before `before`. @returns how many. */
  deleteExpired(before: Date, limit: number): Promise<number>;
}
