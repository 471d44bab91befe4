/**
 * Organizations (companies onboarded as API consumers) and their developers (Apigee:
 * developer), who own the apps.
 */
import type { Page, PageRequest } from "./page.js";

export interface OrganizationRecord {
  id: string;
  /** Unique. */
  name: string;
  displayName: string;
  createdAt: Date;
}

/** An organization as a trusted directory knows it: the directory's issuer and the organization's id there (`org_id`). */
export interface OrganizationAtDirectory {
  issuer: string;
  organizationId: string;
}

export interface DeveloperRecord {
  id: string;
  /** Unique. */
  email: string;
  firstName: string;
  lastName: string;
  organizationId: string;
  createdAt: Date;
}

export interface OrganizationStore {
  /** Organizations, oldest first. */
  list(page: PageRequest): Promise<Page<OrganizationRecord>>;
  /** @returns undefined when unknown. */
  find(id: string): Promise<OrganizationRecord | undefined>;
  /**
   * The organization dynamic client registration created for `organizationId` (a software
   * statement's `org_id`) at the directory `issuer`; never one an admin created.
   * @returns undefined when there is none.
   */
  findByDirectory(issuer: string, organizationId: string): Promise<OrganizationRecord | undefined>;
  /**
   * Creates an organization; `directory` keys one that dynamic client registration creates.
   * @throws Conflict when the name, or the directory's organization, is taken.
   */
  create(organization: { name: string; displayName: string; directory?: OrganizationAtDirectory }): Promise<OrganizationRecord>;
  /** Changes the given fields (undefined keeps a field). @throws NotFound, Conflict when the name is taken. */
  update(id: string, changes: { name?: string; displayName?: string }): Promise<OrganizationRecord>;
  /** Deletes an organization that has no developers. @returns false when it still has developers. @throws NotFound */
  delete(id: string): Promise<boolean>;

  /**
   * Developers, oldest first, optionally of one organization and matching a search: a
   * case-insensitive substring of their email, first or last name.
   */
  listDevelopers(filter: { organizationId?: string | null; search?: string | null }, page: PageRequest): Promise<Page<DeveloperRecord>>;
  /** The developers of an organization, by email. */
  developersOf(organizationId: string): Promise<DeveloperRecord[]>;
  /** @returns undefined when unknown. */
  findDeveloper(id: string): Promise<DeveloperRecord | undefined>;
  /** @returns undefined when no developer has this email. */
  findDeveloperByEmail(email: string): Promise<DeveloperRecord | undefined>;
  /** @throws UnknownReference when the organization does not exist, Conflict when the email is taken. */
  createDeveloper(developer: Omit<DeveloperRecord, "id" | "createdAt">): Promise<DeveloperRecord>;
  /** Changes the given fields (undefined keeps a field). @throws NotFound, Conflict when the email is taken. */
  updateDeveloper(id: string, changes: { email?: string; firstName?: string; lastName?: string }): Promise<DeveloperRecord>;
  /** Deletes a developer who has no apps. @returns false when they still have apps. @throws NotFound */
  deleteDeveloper(id: string): Promise<boolean>;
}
