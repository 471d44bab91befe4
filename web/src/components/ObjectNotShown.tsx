import type { ReactNode } from "react";
import type { QueryResult } from "../lib/useGraphQL";
import { AdminPage } from "./AdminPage";
import { LoadState } from "./LoadState";

/**
 * The console page of one object (an app, a consent) before it can be shown: loading, failed
 * (with Retry), or, when the query found no object with the address's id, "<noun> not found".
 * @param title - the page's title while it loads ("App").
 * @param noun - what the page shows, capitalized ("App", "Consent").
 */
export function ObjectNotShown({ query, title, noun, breadcrumb }: { query: Pick<QueryResult<unknown>, "data" | "loading" | "error" | "reload">; title: string; noun: string; breadcrumb: ReactNode }) {
  return (
    <AdminPage title={query.data ? `${noun} not found` : title} breadcrumb={breadcrumb}>
      <LoadState loading={query.loading} error={query.error} isEmpty onRetry={query.reload}>
        <p className="empty">No {noun.toLowerCase()} with this id.</p>
      </LoadState>
    </AdminPage>
  );
}
