/**
 * One step of signing in to the console's session (a second factor, a new password): sends it
 * with the current CSRF token, keeps the token the server answers with, then `next()`.
 *
 * @param csrfToken - the session's CSRF token, replaced by the one the answer carries.
 * @param send - the request, given the current token; resolves to the server's answer.
 * @param next - what follows a step the server accepted.
 * @param errorOf - turns a refusal (or a network failure) into what the form shows.
 * @returns `undefined` once accepted, else the form's error.
 */
export async function sessionStep<E>(
  csrfToken: { current: string },
  send: (token: string) => Promise<{ csrfToken: string }>,
  next: () => void,
  errorOf: (err: unknown) => E,
): Promise<E | undefined> {
  try {
    const result = await send(csrfToken.current);
    csrfToken.current = result.csrfToken;
    next();
    return undefined;
  } catch (err) {
    return errorOf(err);
  }
}
