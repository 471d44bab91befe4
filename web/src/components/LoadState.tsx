import type { ReactNode } from "react";
import { ErrorAlert } from "./Notices";

/**
 * The loading and error states of something loaded from the server. Until there is
 * something to show (`isEmpty`), it shows "Loading…" or the error with "Try again";
 * afterwards `children`, which show the data (or say there is none), under the last error.
 */
export function LoadState({
  loading,
  error,
  isEmpty,
  onRetry,
  children,
}: {
  loading: boolean;
  error: string | null;
  isEmpty: boolean;
  onRetry?: () => void;
  children: ReactNode;
}) {
  if (error && isEmpty) {
    return (
      <div className="list-state">
        <ErrorAlert message={error} />
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
  return (
    <>
      <ErrorAlert message={error} />
      {children}
    </>
  );
}
