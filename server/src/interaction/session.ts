/**
 * Browser state of the sign-in and consent pages, kept server-side only once there is
 * something to keep:
 *
 * - before sign-in, a browser's CSRF token and the interactions it started live in one
 *   signed cookie (`tollgate.flow`, HMAC-SHA256), so anonymous requests write no session row;
 * - a sign-in creates the session: express-session over the Session table, a fresh id
 *   (fixation defence), the browser's interactions carried over and a new CSRF token. A
 *   sign-in that waits for its second factor creates it too, holding the pending sign-in
 *   without a user (interaction/sign-in.ts); the session records how and when its user
 *   authenticated (`amr`, `authTime`);
 * - one-time values (a pending sign-in, a WebAuthn challenge, a TOTP key being enrolled)
 *   are stashed in the session with an expiry and taken once;
 * - a staff member's session (admin, support, auditor) also ends after ADMIN_IDLE_SECONDS
 *   without a request (EBA/GL/2019/04 §3.4.2: privileged sessions end after inactivity),
 *   sooner than the SESSION_TTL_SECONDS every session has.
 *
 * Both cookies are `HttpOnly`, `SameSite=Lax`, and `Secure` when AUTH_URL is https. Every
 * state-changing interaction call must carry the browser's CSRF token (synchronizer token
 * while signed in, signed double-submit cookie before).
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { parse as parseCookies } from "cookie";
import type { CookieOptions, NextFunction, Request, RequestHandler, Response } from "express";
import session from "express-session";
import type { Config } from "../config.js";
import type { SessionStore } from "../stores/sessions.js";
import { ExpressSessionStore } from "./session-store.js";
import { OAuthError } from "../kernel/errors.js";
import { isStaffRole } from "../kernel/roles.js";
import type { FormPost } from "../oauth/authorization-response.js";

declare module "express-session" {
  interface SessionData {
    /** The signed-in user. */
    userId?: string;
    /** CSRF token for this session (synchronizer token pattern). */
    csrfToken?: string;
    /** Interactions started in this browser; no other browser may answer them. */
    interactionIds?: string[];
    /** When the signed-in user last authenticated, epoch seconds, and with what (RFC 8176 `amr`). */
    authTime?: number;
    amr?: string[];
    /** A staff member's session: it ends after this many seconds without a request. */
    idleSeconds?: number;
    /** The session's last request, epoch seconds (kept with {@link idleSeconds}). */
    activeAt?: number;
    /** One-time values, each with its expiry (epoch milliseconds). */
    stash?: { [K in keyof Stashed]?: { value: Stashed[K]; expiresAt: number } };
  }
}

/** A sign-in waiting for its second factor: one verdict comes after every element (PSD2 RTS Art. 4). */
export interface PendingSignIn {
  /** As typed, for the throttle and the audit. */
  username: string;
  /** The account, when it exists and is active; null otherwise (the attempt will fail). */
  userId: string | null;
  /** Whether the password was right (the attempt fails otherwise, told only after the factor). */
  passwordValid: boolean;
  /** Random id of this attempt: its factor step is answered once, across instances (interaction/sign-in.ts). */
  attemptId: string;
  /** The attempt took the user's last one (interaction/throttle.ts): its failure starts the block. */
  lastAttempt: boolean;
  /** The authorization request signed in for, or null for the console's own sign-in. */
  interactionId: string | null;
}

/** A sign-in done but for the new password: stashed in the session until it is chosen (interaction/password-change.ts). */
export interface PendingPasswordChange {
  userId: string;
  amr: string[];
  /** When the user authenticated, epoch milliseconds. */
  authTime: number;
  /** The authorization request signed in for, or null for the console's own sign-in. */
  interactionId: string | null;
  /** The step the sign-in finished at (its interaction is still there). */
  from: "login" | "factor";
}

/** What the session stashes, by name. */
export interface Stashed {
  pendingSignIn: PendingSignIn;
  /** base64url */
  webauthnChallenge: string;
  /** A TOTP key (base32) shown for enrolment, not yet confirmed. */
  totpEnrolment: string;
  /** A `form_post.jwt` authorization response the browser is sent to post (oauth/authorization-response.ts FORM_POST_PATH). */
  formPost: FormPost;
  /** A sign-in with a temporary password, waiting for the new password (interaction/password-change.ts). */
  passwordChange: PendingPasswordChange;
}

/** How and when the signed-in user authenticated. */
export interface SessionAuthentication {
  userId: string;
  amr: string[];
  authTime: Date;
}

export const SESSION_COOKIE = "tollgate.sid";
export const FLOW_COOKIE = "tollgate.flow";

/** How many interactions a browser keeps (the newest). */
const MAX_INTERACTIONS = 10;

/** A browser's CSRF token and the interactions it started. */
interface BrowserState {
  csrfToken?: string;
  interactionIds: string[];
}

/** Constant-time string equality (length leaks, content does not). */
function sameText(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/** The sessions of the sign-in, consent and console pages, with the pre-sign-in flow cookie. */
export class BrowserSessions {
  /**
   * The express-session middleware (also used by the admin API to find the signed-in user),
   * which also ends a staff session idle for longer than its limit: the request then goes on
   * signed out, with `res.locals.endedIdle` set.
   */
  readonly middleware: RequestHandler;
  /** ADMIN_IDLE_SECONDS, capped by SESSION_TTL_SECONDS. */
  private readonly staffIdleSeconds: number;
  /** HMAC key of the flow cookie, derived from the session secret. */
  private readonly flowKey: Buffer;
  private readonly cookieOptions: CookieOptions;

  constructor(config: Config, sessions: SessionStore) {
    const secret = config.sessionSecret ?? randomBytes(32).toString("hex");
    this.flowKey = createHmac("sha256", secret).update(FLOW_COOKIE).digest();
    const cookie = { httpOnly: true, sameSite: "lax", secure: config.authUrl.startsWith("https:"), path: "/" } as const;
    this.cookieOptions = { ...cookie, maxAge: config.interactionTtlSeconds * 1000 };
    this.staffIdleSeconds = Math.min(config.adminIdleSeconds, config.sessionTtlSeconds);
    const expressSession = session({
      name: SESSION_COOKIE,
      secret,
      store: new ExpressSessionStore(sessions),
      resave: false,
      saveUninitialized: false,
      rolling: true,
      proxy: config.trustProxyHops > 0,
      cookie: { ...cookie, maxAge: config.sessionTtlSeconds * 1000 },
    });
    this.middleware = (req, res, next) => {
      expressSession(req, res, (err?: unknown) => (err ? next(err) : endIfIdle(req, res).then(() => next(), next)));
    };
  }

  /** The browser's CSRF token, created on first use (in the session once signed in, else in the flow cookie). */
  async csrfToken(req: Request, res: Response): Promise<string> {
    if (serverSide(req)) {
      req.session.csrfToken ??= randomBytes(32).toString("base64url");
      await saveSession(req);
      return req.session.csrfToken;
    }
    const state = this.flowState(req);
    if (state.csrfToken !== undefined) return state.csrfToken;
    const csrfToken = randomBytes(32).toString("base64url");
    this.writeFlow(res, { ...state, csrfToken });
    return csrfToken;
  }

  /** The interactions this browser started (before and after sign-in), and its signed-in user. */
  browser(req: Request): { interactionIds: string[]; userId: string | undefined } {
    return { interactionIds: [...(req.session.interactionIds ?? []), ...this.flowState(req).interactionIds], userId: req.session.userId };
  }

  /** Records that this browser started an interaction (the newest {@link MAX_INTERACTIONS} are kept). */
  async addInteraction(req: Request, res: Response, id: string): Promise<void> {
    if (serverSide(req)) {
      req.session.interactionIds = [...(req.session.interactionIds ?? []), id].slice(-MAX_INTERACTIONS);
      await saveSession(req);
      return;
    }
    const state = this.flowState(req);
    this.writeFlow(res, { ...state, interactionIds: [...state.interactionIds, id].slice(-MAX_INTERACTIONS) });
  }

  /**
   * Rejects a state-changing call unless it is JSON and carries the browser's CSRF token in
   * `X-CSRF-Token` (a cross-site form can do neither).
   */
  readonly requireCsrf = (req: Request, _res: Response, next: NextFunction): void => {
    const expected = serverSide(req) ? req.session.csrfToken : this.flowState(req).csrfToken;
    if (!req.is("application/json")) throw new OAuthError("invalid_request", "Content-Type must be application/json", 415);
    if (expected === undefined || !sameText(req.get("x-csrf-token") ?? "", expected)) {
      throw new OAuthError("invalid_request", "missing or invalid CSRF token", 403);
    }
    next();
  };

  /**
   * Signs `userId` in after authenticating with `amr` at `authTime`: a new session id
   * (session fixation defence) keeping the browser's interactions, a fresh CSRF token, the
   * flow cookie cleared and every stashed value dropped. The session of a staff `role` ends
   * after ADMIN_IDLE_SECONDS without a request.
   * @returns the new CSRF token.
   */
  async signIn(req: Request, res: Response, authentication: SessionAuthentication, role: string): Promise<string> {
    await this.renew(req, res);
    req.session.userId = authentication.userId;
    req.session.amr = authentication.amr;
    req.session.authTime = Math.floor(authentication.authTime.getTime() / 1000);
    if (isStaffRole(role)) {
      req.session.idleSeconds = this.staffIdleSeconds;
      req.session.activeAt = nowSeconds();
    }
    return this.csrfToken(req, res);
  }

  /** Seconds without a request after which this browser's session ends sooner than every session does (a staff member's); null when none. */
  idleSeconds(req: Request): number | null {
    return req.session.userId === undefined ? null : (req.session.idleSeconds ?? null);
  }

  /**
   * Starts a sign-in that waits for its second factor. Without a signed-in user the session
   * is renewed (new id, the interactions carried over) and holds only the pending sign-in;
   * a signed-in user confirming who they are keeps their session meanwhile.
   * @param ttlSeconds - how long the second factor may take.
   * @returns the CSRF token to use next.
   */
  async beginSignIn(req: Request, res: Response, pending: PendingSignIn, ttlSeconds: number): Promise<string> {
    if (req.session.userId === undefined) await this.renew(req, res);
    await this.stash(req, "pendingSignIn", pending, ttlSeconds);
    return this.csrfToken(req, res);
  }

  /** How and when this browser's user authenticated; undefined when no one is signed in. */
  authentication(req: Request): SessionAuthentication | undefined {
    const { userId, amr, authTime } = req.session;
    return userId === undefined ? undefined : { userId, amr: amr ?? [], authTime: new Date((authTime ?? 0) * 1000) };
  }

  /** Stashes a one-time value for `ttlSeconds`, replacing any earlier one of that name. */
  async stash<K extends keyof Stashed>(req: Request, name: K, value: Stashed[K], ttlSeconds: number): Promise<void> {
    req.session.stash = { ...req.session.stash, [name]: { value, expiresAt: Date.now() + ttlSeconds * 1000 } };
    await saveSession(req);
  }

  /** The stashed value, if still valid, left in place. */
  peek<K extends keyof Stashed>(req: Request, name: K): Stashed[K] | undefined {
    const entry = req.session.stash?.[name];
    return entry && entry.expiresAt > Date.now() ? (entry.value as Stashed[K]) : undefined;
  }

  /** The stashed value, if still valid, removed: each is taken once. */
  async take<K extends keyof Stashed>(req: Request, name: K): Promise<Stashed[K] | undefined> {
    const value = this.peek(req, name);
    if (req.session.stash?.[name] === undefined) return value;
    const { [name]: _taken, ...rest } = req.session.stash;
    req.session.stash = rest;
    await saveSession(req);
    return value;
  }

  /** A new session id with only the browser's interactions and a new CSRF token; the flow cookie cleared. */
  private async renew(req: Request, res: Response): Promise<void> {
    const interactionIds = this.browser(req).interactionIds.slice(-MAX_INTERACTIONS);
    await new Promise<void>((resolve, reject) => req.session.regenerate((err) => (err ? reject(err) : resolve())));
    req.session.interactionIds = interactionIds;
    req.session.csrfToken = randomBytes(32).toString("base64url");
    res.clearCookie(FLOW_COOKIE, { path: "/" });
  }

  /** Ends the session and forgets the browser's state. */
  async signOut(req: Request, res: Response): Promise<void> {
    await new Promise<void>((resolve, reject) => req.session.destroy((err) => (err ? reject(err) : resolve())));
    res.clearCookie(SESSION_COOKIE, { path: "/" }).clearCookie(FLOW_COOKIE, { path: "/" });
  }

  /**
   * Signs the browser out but keeps it on one interaction (the consent page's "Not you? Sign
   * out"): the session ends, and a new pre-sign-in state holds only `interactionId` and a new
   * CSRF token.
   * @returns the new CSRF token.
   */
  async signOutTo(req: Request, res: Response, interactionId: string): Promise<string> {
    await this.signOut(req, res);
    const csrfToken = randomBytes(32).toString("base64url");
    this.writeFlow(res, { csrfToken, interactionIds: [interactionId] });
    return csrfToken;
  }

  /** The flow cookie's state; a missing, malformed or forged cookie counts as empty. */
  private flowState(req: Request): BrowserState {
    const raw = req.headers.cookie === undefined ? undefined : parseCookies(req.headers.cookie)[FLOW_COOKIE];
    const dot = raw?.lastIndexOf(".") ?? -1;
    if (raw === undefined || dot < 0 || !sameText(this.mac(raw.slice(0, dot)), raw.slice(dot + 1))) return { interactionIds: [] };
    try {
      const { c, i } = JSON.parse(Buffer.from(raw.slice(0, dot), "base64url").toString("utf8")) as { c?: unknown; i?: unknown };
      const ids = Array.isArray(i) ? i.filter((x): x is string => typeof x === "string") : [];
      return { csrfToken: typeof c === "string" ? c : undefined, interactionIds: ids };
    } catch {
      return { interactionIds: [] };
    }
  }

  private writeFlow(res: Response, state: BrowserState): void {
    const payload = Buffer.from(JSON.stringify({ c: state.csrfToken, i: state.interactionIds })).toString("base64url");
    res.cookie(FLOW_COOKIE, `${payload}.${this.mac(payload)}`, this.cookieOptions);
  }

  private mac(payload: string): string {
    return createHmac("sha256", this.flowKey).update(payload).digest("base64url");
  }
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/**
 * Ends a session with an idle limit (a staff member's) whose last request is longer ago than
 * the limit: the request goes on with a new, empty session, and `res.locals.endedIdle` is set.
 * Otherwise the request counts as activity.
 */
async function endIfIdle(req: Request, res: Response): Promise<void> {
  const { idleSeconds, activeAt } = req.session;
  if (idleSeconds === undefined) return;
  const now = nowSeconds();
  if (now - (activeAt ?? 0) <= idleSeconds) {
    if (activeAt !== now) req.session.activeAt = now;
    return;
  }
  await new Promise<void>((resolve, reject) => req.session.regenerate((err) => (err ? reject(err) : resolve())));
  res.locals.endedIdle = true;
}

/** The browser's state lives in the server-side session (signed in, or a sign-in under way), not in the flow cookie. */
function serverSide(req: Request): boolean {
  return req.session.userId !== undefined || req.session.csrfToken !== undefined;
}

/**
 * Stores the session now. Handlers call it before answering when they changed the session:
 * express-session's own save at the end of a response may let the headers out first, and
 * the browser's next request, on another database connection, could then read the old state.
 */
function saveSession(req: Request): Promise<void> {
  return new Promise((resolve, reject) => req.session.save((err) => (err ? reject(err) : resolve())));
}
