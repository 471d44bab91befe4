/**
 * Interactions: the server-side state of one authorization request between /authorize and
 * the redirect back to the client (login -> consent -> done).
 */

/** login -> (factor ->) consent -> done */
export type InteractionStage = "login" | "factor" | "consent" | "done";

export interface InteractionRecord {
  id: string;
  appId: string;
  redirectUri: string;
  scopes: string[];
  state: string | null;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  /** The request's `prompt` values, space-separated (OpenID Connect Core §3.1.2.1); null when none. */
  prompt: string | null;
  /** RFC 9449 §10: the DPoP key thumbprint the code will be bound to; null when unbound. */
  dpopJkt: string | null;
  /** OpenID Connect Core §3.1.2.1: the request's `nonce`, for the ID token; null when none. */
  nonce: string | null;
  /** OpenID Connect Core §3.1.2.1 `login_hint`, offered as the username at sign-in; null when none. */
  loginHint: string | null;
  /** OpenID Connect Core §3.1.2.1 `ui_locales`: the languages the pages should speak, space-separated BCP 47 tags in order of preference; null when none. */
  uiLocales: string | null;
  /** RFC 8707: the resource indicators of the request, carried into the code; null when none. */
  resource: readonly string[] | null;
  /** The request's `client_id`: the audience of a signed authorization response (JARM §2.1); null on rows older than it. */
  clientId: string | null;
  /** How the authorization response is sent: in the query, signed in it (`query.jwt`, JARM §2.3.1), or signed and posted (`form_post.jwt`, §2.3.3). */
  responseMode: "query" | "query.jwt" | "form_post.jwt";
  /** The verified signed request object the request came in (RFC 9101, compact JWS), kept as evidence; null when unsigned. */
  requestObject: string | null;
  /** The bank's identity provider the PSU signs in at (federation/); null: Tollgate's own sign-in. */
  identityProviderId: string | null;
  /** Two factors are needed: a scope of a `requiresSca` product, or `acr_values` asking for SCA (RTS Art. 4). */
  scaRequired: boolean;
  /** The PSD2 consent being authorized (status received), holding the requested authorization details (RFC 9396); null when none. */
  consentId: string | null;
  /** The SHA-256 hex of the `request_uri` of the pushed request this interaction answers (RFC 9126), used up when its code is issued; null when not pushed. */
  requestUriHash: string | null;
  stage: InteractionStage;
  userId: string | null;
  /** The authentication done for this interaction (or the session's, when reused); null before it. */
  authentication: { amr: string[]; authTime: Date } | null;
  expiresAt: Date;
}

/** A new interaction: everything but the id; no consent or pushed request when left out. */
export type NewInteraction = Omit<InteractionRecord, "id" | "consentId" | "requestUriHash"> & { consentId?: string; requestUriHash?: string };

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
  /**
   * Records the user's authentication and moves the interaction from `from` to `to`, only if
   * it is still at `from`. @returns false when another request moved it first.
   */
  authenticate(id: string, from: InteractionStage, to: InteractionStage, userId: string, authentication: { amr: string[]; authTime: Date }): Promise<boolean>;
  /** Sends the interaction back to the login stage, forgetting its user and authentication (a failed or stale sign-in). */
  restartLogin(id: string, from: InteractionStage): Promise<boolean>;
  /**
   * Records the SHA-256 hex of the `state` of a sign-in sent to the interaction's identity
   * provider, replacing an earlier one (federation/), while it is at the login stage.
   * @returns false when it is no longer at the login stage.
   */
  sendUpstream(id: string, stateHash: string): Promise<boolean>;
  /** The interaction whose upstream sign-in has this `state` hash, which is forgotten: each is answered once. @returns undefined when none. */
  takeUpstream(stateHash: string): Promise<InteractionRecord | undefined>;
  /**
   * Opens a challenge for the bank's own application (interaction/delegation.ts): records its
   * SHA-256 hex, replacing an earlier one, while the interaction is at `stage`.
   * @returns false when it is no longer at that stage.
   */
  openChallenge(id: string, stage: InteractionStage, challengeHash: string): Promise<boolean>;
  /** The interaction whose challenge has this hash (answered once: answering moves the interaction on). @returns undefined when none. */
  byChallenge(challengeHash: string): Promise<InteractionRecord | undefined>;
  /** Deletes up to `limit` interactions that expired before `before`. @returns how many. */
  deleteExpired(before: Date, limit: number): Promise<number>;
}
