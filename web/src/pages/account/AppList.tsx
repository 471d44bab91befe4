import type { ReactNode } from "react";
import { LoadState } from "../../components/LoadState";
import { ActionNotices } from "../../components/Notices";
import type { Action } from "../../lib/useGraphQL";

/** The words of an {@link AppList}: its heading's id (which names the section), title, intro, and what it says when empty. */
export interface AppListSection {
  id: string;
  title: string;
  intro: string;
  empty: string;
}

/**
 * A section of the Account page listing what the user gave apps (connected apps, PSD2
 * consents): its heading and intro, the action's messages, then one item per entry headed by
 * its app's name, with `children` (the entry's facts) under the name and `actions` beside it;
 * its `empty` words when there are none.
 */
export function AppList<Item extends { id: string; appName: string }>({
  section: { id, title, intro, empty },
  action,
  query,
  items,
  actions,
  children,
}: {
  section: AppListSection;
  action: Action;
  query: { loading: boolean; error: string | null; reload: () => void };
  items: readonly Item[];
  actions: (item: Item) => ReactNode;
  children: (item: Item) => ReactNode;
}) {
  return (
    <section aria-labelledby={id} className="connected">
      <h2 id={id}>{title}</h2>
      <p className="muted small">{intro}</p>
      <ActionNotices action={action} />
      <LoadState loading={query.loading} error={query.error} isEmpty={items.length === 0} onRetry={query.reload}>
        {items.length === 0 ? (
          <p className="empty">{empty}</p>
        ) : (
          <ul className="connected-apps">
            {items.map((item) => (
              <li key={item.id} className="connected-app">
                <div className="connected-app-info">
                  <h3>
                    <bdi>{item.appName}</bdi>
                  </h3>
                  {children(item)}
                </div>
                {actions(item)}
              </li>
            ))}
          </ul>
        )}
      </LoadState>
    </section>
  );
}
