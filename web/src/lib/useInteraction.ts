import { useCallback, useEffect, useState } from "react";
import { useNavigate } from "react-router";
import { getInteraction, InteractionApiError, isTerminal, type Interaction } from "../api/interaction";
import { errorPageUrl } from "./navigation";
import { sentence } from "./text";

export type InteractionState =
  | { status: "loading" }
  | { status: "ready"; interaction: Interaction }
  | { status: "failed"; message: string };

/**
 * Loads an interaction. An interaction that is unknown, over or someone else's (404, 410,
 * 403) sends the browser to the error page; other failures can be retried with `reload`.
 */
export function useInteraction(id: string | null): { state: InteractionState; reload: () => void } {
  const navigate = useNavigate();
  const [state, setState] = useState<InteractionState>({ status: "loading" });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    if (!id) return undefined;
    const controller = new AbortController();
    setState({ status: "loading" });
    getInteraction(id, controller.signal).then(
      (interaction) => {
        if (!controller.signal.aborted) setState({ status: "ready", interaction });
      },
      (err: unknown) => {
        if (controller.signal.aborted) return;
        if (err instanceof InteractionApiError && isTerminal(err)) {
          navigate(errorPageUrl(err.error, err.errorDescription), { replace: true });
          return;
        }
        const message =
          err instanceof InteractionApiError && err.errorDescription
            ? sentence(err.errorDescription)
            : "Something went wrong while loading this page. Please try again.";
        setState({ status: "failed", message });
      },
    );
    return () => controller.abort();
  }, [id, attempt, navigate]);

  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  return { state, reload };
}
