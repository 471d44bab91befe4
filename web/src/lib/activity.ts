/**
 * When this page last reached the server. A staff member's session ends after
 * ADMIN_IDLE_SECONDS without a request (server/src/interaction/session.ts), and every answer
 * the server sends means it counted one, so the API clients note each answer here and the
 * console's idle notice (components/IdleNotice.tsx) counts from the last.
 */
type Listener = (at: number) => void;

let lastAnswerAt = Date.now();
const listeners = new Set<Listener>();

/** Records that the server answered a request now. */
export function noteServerAnswer(): void {
  lastAnswerAt = Date.now();
  for (const listener of listeners) listener(lastAnswerAt);
}

/** When the server last answered, epoch milliseconds. */
export function lastServerAnswer(): number {
  return lastAnswerAt;
}

/** Calls `listener` with the time of each answer from now on. @returns the unsubscribe function. */
export function onServerAnswer(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * The idle notice's state at `now`: the seconds left before a session idle since
 * `lastAnswerAt` (epoch ms) ends after `idleSeconds`, and whether to warn (the last
 * `warnSeconds`, or the last fifth of a shorter limit).
 */
export function idleState(lastAnswerAt: number, idleSeconds: number, now: number, warnSeconds = 120): { secondsLeft: number; warn: boolean } {
  const secondsLeft = Math.max(0, Math.ceil((lastAnswerAt + idleSeconds * 1000 - now) / 1000));
  return { secondsLeft, warn: secondsLeft <= Math.min(warnSeconds, Math.floor(idleSeconds / 5)) };
}
