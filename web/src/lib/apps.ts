/**
 * The apps page's filter (pages/admin/AppsPage.tsx): as its URL's query string holds it, and
 * as the apps query takes it; an app's status in words.
 */
import type { AppFilter, Status } from "../api/admin";

/** The apps page's filter: a search of names and consumer keys, an organization's and a developer's id, a status; "" when not given. */
export interface AppListFilter {
  search: string;
  organization: string;
  developer: string;
  status: Status | "";
}

const STATUSES: ReadonlySet<string> = new Set<Status>(["approved", "pending", "revoked"]);

/** The filter a URL's query string holds; an unknown status is no status. */
export function readAppFilter(params: URLSearchParams): AppListFilter {
  const status = params.get("status") ?? "";
  return {
    search: params.get("search")?.trim() ?? "",
    organization: params.get("organization") ?? "",
    developer: params.get("developer") ?? "",
    status: STATUSES.has(status) ? (status as Status) : "",
  };
}

/** The query string of a filter: its criteria given, by name. */
export function appFilterQuery(f: Partial<AppListFilter>): Record<string, string> {
  return Object.fromEntries(Object.entries(f).filter((entry): entry is [string, string] => Boolean(entry[1])));
}

/** The apps query's filter, or undefined when nothing narrows the list. */
export function appFilterVariables(f: AppListFilter): AppFilter | undefined {
  const filter: AppFilter = {
    ...(f.search ? { search: f.search } : {}),
    ...(f.organization ? { organizationId: f.organization } : {}),
    ...(f.developer ? { developerId: f.developer } : {}),
    ...(f.status ? { status: f.status } : {}),
  };
  return Object.keys(filter).length > 0 ? filter : undefined;
}

/** An app's status as its badge reads: "pending approval" for a registration awaiting the bank's approval, else the status. */
export function appStatusText(status: Status): string {
  return status === "pending" ? "pending approval" : status;
}
