import { InteractionApiError } from "../api/interaction";

/** Server error descriptions are lower-case fragments ("this sign-in request has expired"): show them as sentences. */
export function sentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === "") return trimmed;
  const capitalised = trimmed[0]!.toUpperCase() + trimmed.slice(1);
  return /[.!?…]$/.test(capitalised) ? capitalised : `${capitalised}.`;
}

/** What to tell the user about a failed call to the browser API: the server's description, else `fallback`. */
export function describeFailure(err: unknown, fallback = "Something went wrong. Please try again."): string {
  return err instanceof InteractionApiError && err.errorDescription ? sentence(err.errorDescription) : fallback;
}
