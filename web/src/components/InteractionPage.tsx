import { useEffect, type ReactNode } from "react";
import { useNavigate } from "react-router";
import type { Interaction, InteractionStage } from "../api/interaction";
import { routes } from "../lib/routes";
import { useInteraction } from "../lib/useInteraction";
import { LoadFailed, Loading } from "./Page";

/** The page of each stage: the sign-in page shows both the password and the second factor. */
const STAGE_PAGES: Record<InteractionStage, (interactionId: string) => string> = { login: routes.login, factor: routes.login, consent: routes.consent };

/**
 * The page of an authorization request's `stage` (sign-in, which also shows the factor
 * stage, or consent): loads the interaction, moves to the other page when the interaction's
 * stage is shown there, and renders `children` with it; `reload` loads it again (e.g. after
 * the session changed).
 */
export function InteractionPage({
  id,
  stage,
  title,
  children,
}: {
  id: string;
  stage: InteractionStage;
  title: string;
  children: (interaction: Interaction, reload: () => void) => ReactNode;
}) {
  const navigate = useNavigate();
  const { state, reload } = useInteraction(id);
  const elsewhere = state.status === "ready" && STAGE_PAGES[state.value.stage] !== STAGE_PAGES[stage] ? state.value.stage : null;

  useEffect(() => {
    if (elsewhere) navigate(STAGE_PAGES[elsewhere](id), { replace: true });
  }, [elsewhere, id, navigate]);

  if (state.status === "failed") return <LoadFailed title={title} message={state.message} onRetry={reload} />;
  if (state.status === "loading" || elsewhere) return <Loading title={title} />;
  return children(state.value, reload);
}
