import { useCallback, useEffect, useRef, useState } from "react";
import { describeFailure } from "./text";

/** Something loaded from the server's browser API: under way, failed (the message to show), or there. */
export type Loaded<T> = { status: "loading" } | { status: "failed"; message: string } | { status: "ready"; value: T };

/**
 * Runs `load` when the component mounts and whenever `key` changes, and again on `reload`.
 * A failure becomes the message to show, unless `takeOver` handles it (and returns true),
 * e.g. by leaving the page.
 */
export function useLoad<T>(
  key: string,
  load: (signal: AbortSignal) => Promise<T>,
  takeOver: (err: unknown) => boolean = () => false,
): { state: Loaded<T>; reload: () => void } {
  const [state, setState] = useState<Loaded<T>>({ status: "loading" });
  const [attempt, setAttempt] = useState(0);
  const latest = useRef({ load, takeOver });
  latest.current = { load, takeOver };

  useEffect(() => {
    const controller = new AbortController();
    setState({ status: "loading" });
    latest.current.load(controller.signal).then(
      (value) => {
        if (!controller.signal.aborted) setState({ status: "ready", value });
      },
      (err: unknown) => {
        if (controller.signal.aborted || latest.current.takeOver(err)) return;
        setState({ status: "failed", message: describeFailure(err, "Something went wrong while loading this page. Please try again.") });
      },
    );
    return () => controller.abort();
  }, [key, attempt]);

  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  return { state, reload };
}
