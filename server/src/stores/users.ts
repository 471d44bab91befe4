/**
 * End users (bank customers, PSUs) and administrators.
 */
import type { Page, PageRequest } from "./page.js";

export interface UserRecord {
  id: string;
  username: string;
  /** argon2id PHC string. */
  passwordHash: string;
  /** user | admin */
  role: string;
  /** active | disabled */
  status: string;
  createdAt: Date;
  /** OpenID Connect Core §5.1 claims (`profile` and `email` scopes); null when not known. */
  name: string | null;
  givenName: string | null;
  familyName: string | null;
  email: string | null;
  /** Whether the bank verified `email` (§5.1 `email_verified`). */
  emailVerified: boolean;
  /** Until when the user's temporary password (set by an administrator) signs in; null: the user's own password. */
  temporaryPasswordUntil: Date | null;
}

export interface UserStore {
  /** @returns undefined when unknown. */
  byUsername(username: string): Promise<UserRecord | undefined>;
  /** @returns undefined when unknown. */
  byId(id: string): Promise<UserRecord | undefined>;
  /** True when the user exists and is active (one prepared read: the code and refresh grants). */
  isActive(id: string): Promise<boolean>;
  /** Users whose username contains `search` (case-insensitive, literally), oldest first. */
  list(search: string | null | undefined, page: PageRequest): Promise<Page<UserRecord>>;
  /** @param passwordHash - argon2id PHC string. @throws Conflict when the username is taken. */
  create(user: { username: string; passwordHash: string; role: string }): Promise<UserRecord>;
  /** @throws NotFound when no user has this id. */
  setStatus(id: string, status: "active" | "disabled"): Promise<UserRecord>;
  /** @throws NotFound when unknown. */
  setRole(id: string, role: string): Promise<UserRecord>;
  /**
   * Replaces the password.
   * @param passwordHash - argon2id PHC string.
   * @param temporaryUntil - a temporary password's end (the user must change it at the next sign-in); null: the user's own.
   * @throws NotFound when unknown.
   */
  setPassword(id: string, passwordHash: string, temporaryUntil: Date | null): Promise<UserRecord>;
}
