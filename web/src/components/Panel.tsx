import { useId, type ReactNode } from "react";

/** A titled section of a console page (an <h2> card); `actions` sit on the right of the title. */
export function Panel({
  title,
  actions,
  children,
  className,
  id,
}: {
  title: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  className?: string;
  id?: string;
}) {
  const headingId = useId();
  return (
    <section id={id} className={className ? `panel ${className}` : "panel"} aria-labelledby={headingId}>
      <div className="panel-head">
        <h2 id={headingId}>{title}</h2>
        {actions && <div className="panel-actions">{actions}</div>}
      </div>
      {children}
    </section>
  );
}

/** "Load more" under a paginated list. */
export function LoadMore({ hasNextPage, loading, onLoadMore, what }: { hasNextPage: boolean; loading: boolean; onLoadMore: () => void; what: string }) {
  return (
    <>
      {hasNextPage && (
        <div className="load-more">
          <button type="button" className="button secondary" disabled={loading} aria-busy={loading || undefined} onClick={onLoadMore}>
            Load more<span className="visually-hidden"> {what}</span>
          </button>
        </div>
      )}
      <p role="status" className="status">
        {loading ? `Loading more ${what}…` : ""}
      </p>
    </>
  );
}

/** Loading, error and empty states of a list; renders `children` once there is something to show. */
export function ListState({
  loading,
  error,
  empty,
  isEmpty,
  onRetry,
  children,
}: {
  loading: boolean;
  error: string | null;
  empty: ReactNode;
  isEmpty: boolean;
  onRetry?: () => void;
  children: ReactNode;
}) {
  if (error && isEmpty) {
    return (
      <div className="list-state">
        <p role="alert" className="alert">
          {error}
        </p>
        {onRetry && (
          <button type="button" className="button secondary small" onClick={onRetry}>
            Try again
          </button>
        )}
      </div>
    );
  }
  if (loading && isEmpty) {
    return (
      <p role="status" className="muted">
        Loading…
      </p>
    );
  }
  if (isEmpty) return <p className="empty">{empty}</p>;
  return (
    <>
      {error && (
        <p role="alert" className="alert">
          {error}
        </p>
      )}
      {children}
    </>
  );
}
