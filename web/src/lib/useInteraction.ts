import { useNavigate } from "react-router";
import { getInteraction, InteractionApiError, isTerminal, type Interaction } from "../api/interaction";
import { routes } from "./routes";
import { useLoad, type Loaded } from "./useLoad";

/**
 * Loads an interaction. An interaction that is unknown, over or someone else's (404, 410,
 * 403) sends the browser to the error page; other failures can be retried with `reload`.
 */
export function useInteraction(id: string): { state: Loaded<Interaction>; reload: () => void } {
  const navigate = useNavigate();
  return useLoad(
    id,
    (signal) => getInteraction(id, signal),
    (err) => {
      if (!(err instanceof InteractionApiError && isTerminal(err))) return false;
      navigate(routes.error(err.error, err.errorDescription), { replace: true });
      return true;
    },
  );
}
