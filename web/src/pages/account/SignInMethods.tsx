import { useEffect, useId, useRef, useState } from "react";
import {
  addPasskey,
  confirmTotpEnrolment,
  listFactors,
  PasskeyCeremonyError,
  proofFor,
  removeFactor,
  startTotpEnrolment,
  type Factor,
  type FactorAnswer,
  type FactorType,
  type TotpEnrolment,
} from "../../api/factors";
import { InteractionApiError } from "../../api/interaction";
import { getSession } from "../../api/session";
import { actionsColumn, DataTable, type Column } from "../../components/DataTable";
import { FactorStep, passkeyFailureMessage } from "../../components/FactorStep";
import { DateTime } from "../../components/Format";
import { LoadState } from "../../components/LoadState";
import { ErrorAlert, StatusMessage } from "../../components/Notices";
import { brand } from "../../lib/brand";
import { useSession } from "../../lib/session";
import { describeFailure } from "../../lib/text";
import { useLoad } from "../../lib/useLoad";
import { ConfirmIdentity } from "./ConfirmIdentity";
import { PasskeySetup } from "./PasskeySetup";
import { TotpSetup } from "./TotpSetup";

/** A factor's type in words. */
const FACTOR_TYPES: Record<FactorType, string> = { totp: "Authenticator app", webauthn: "Passkey" };

/** How the list names a factor: its name, else its type. */
const factorName = (factor: Factor) => factor.name || FACTOR_TYPES[factor.type];

/** What the section shows under the list: nothing more, or one of its forms. */
type Mode = { kind: "list" } | { kind: "totp"; enrolment: TotpEnrolment } | { kind: "passkey" } | { kind: "remove"; factor: Factor };

/** A change refused because the sign-in is not fresh: the user confirms who they are, then `retry` runs (when given). */
interface Reauthentication {
  reason: string;
  retry: (() => void) | null;
}

/** Where a failure is shown: above the list, or on the form it came from. */
type Where = "section" | "totp" | "passkey";

/** Something in the section to give focus to, once rendered. */
type FocusTarget = "heading" | "setup-totp" | "add-passkey" | `remove:${string}`;

/** The server wants the user to sign in again first (not fresh, or the session ended). */
const needsSignIn = (err: unknown) => err instanceof InteractionApiError && err.status === 401 && err.error !== "invalid_credentials";

function messageOf(err: unknown): string {
  if (err instanceof PasskeyCeremonyError) return passkeyFailureMessage(err, true);
  return describeFailure(err);
}

async function load(signal: AbortSignal) {
  const [session, list] = await Promise.all([getSession(signal), listFactors(signal)]);
  return { csrfToken: session.csrfToken, factors: list.factors };
}

/**
 * "Sign-in methods" of the Account page: the user's second factors (authenticator apps and
 * passkeys) with "Set up an authenticator app", "Add a passkey" and "Remove". Changes need a
 * fresh sign-in: when the server says so (401 login_required), the user confirms who they
 * are in place and the change runs again. Removing also needs a second factor now.
 */
export function SignInMethods() {
  const { user } = useSession();
  const headingId = useId();
  const sectionRef = useRef<HTMLElement>(null);
  const { state, reload } = useLoad("sign-in-methods", load);
  const csrfToken = useRef("");
  const [factors, setFactors] = useState<Factor[] | null>(null);
  const [mode, setMode] = useState<Mode>({ kind: "list" });
  const [reauth, setReauth] = useState<Reauthentication | null>(null);
  const [pending, setPending] = useState<string | null>(null);
  const [error, setError] = useState<{ where: Where; message: string } | null>(null);
  const [status, setStatus] = useState("");
  const [focusTarget, setFocusTarget] = useState<FocusTarget | null>(null);
  const running = useRef(false);

  useEffect(() => {
    if (state.status !== "ready") return;
    csrfToken.current = state.value.csrfToken;
    setFactors(state.value.factors);
  }, [state]);

  useEffect(() => {
    if (!focusTarget) return;
    sectionRef.current?.querySelector<HTMLElement>(`[data-focus="${CSS.escape(focusTarget)}"]`)?.focus();
    setFocusTarget(null);
  }, [focusTarget, mode, reauth]);

  /**
   * Runs a change: tracks `pending` (ignoring clicks meanwhile), shows a failure where it
   * belongs, and after a 401 login_required asks the user to confirm who they are, then runs
   * the change again (or `afterReauth` instead).
   */
  async function change(key: string, where: Where, call: () => Promise<void>, afterReauth?: () => void): Promise<void> {
    if (running.current) return;
    running.current = true;
    setPending(key);
    setError(null);
    setStatus("");
    try {
      await call();
    } catch (err) {
      if (needsSignIn(err)) {
        setReauth({
          reason: describeFailure(err, "Sign in again to change your sign-in methods."),
          retry: afterReauth ?? (() => void change(key, where, call, afterReauth)),
        });
      } else {
        setError({ where, message: messageOf(err) });
      }
    } finally {
      running.current = false;
      setPending(null);
    }
  }

  function back(focus: FocusTarget) {
    setMode({ kind: "list" });
    setError(null);
    setFocusTarget(focus);
  }

  /** @param note - said once the new key is shown (why the setup started over). */
  function setUpTotp(note = "") {
    void change("setup-totp", "section", async () => {
      const enrolment = await startTotpEnrolment(csrfToken.current);
      setMode({ kind: "totp", enrolment });
      setStatus(note);
    });
  }

  function confirmTotp(code: string, name: string) {
    void change(
      "confirm-totp",
      "totp",
      async () => {
        const factor = await confirmTotpEnrolment(csrfToken.current, code, name);
        setFactors((list) => [...(list ?? []), factor]);
        setStatus(`Authenticator app “${factorName(factor)}” added. You will use it when you sign in.`);
        back("setup-totp");
      },
      // Signing in again discards the key shown (the server keeps it in the session until
      // confirmed): the setup starts over with a new one.
      () => {
        setMode({ kind: "list" });
        setUpTotp("The key shown before was discarded when you signed in again: add this new one to your authenticator app.");
      },
    );
  }

  function createPasskey(name: string) {
    void change("add-passkey", "passkey", async () => {
      const factor = await addPasskey(csrfToken.current, name);
      setFactors((list) => [...(list ?? []), factor]);
      setStatus(`Passkey “${factorName(factor)}” added. You can use it when you sign in.`);
      back("add-passkey");
    });
  }

  /** The remove form's answer: removes the factor with this proof; resolves to the message to show on the form. */
  async function remove(factor: Factor, answer: FactorAnswer): Promise<string | undefined> {
    setStatus("");
    try {
      const left = await removeFactor(csrfToken.current, factor.id, await proofFor(answer, csrfToken.current));
      setFactors(left);
      setStatus(`${FACTOR_TYPES[factor.type]} “${factorName(factor)}” removed.`);
      back("heading");
      return undefined;
    } catch (err) {
      if (err instanceof PasskeyCeremonyError) return passkeyFailureMessage(err);
      if (needsSignIn(err)) {
        // A proof is single-use (a code once per time step, a passkey challenge once): after
        // signing in again, the form asks for a new one rather than sending this one again.
        setReauth({ reason: describeFailure(err, "Sign in again to change your sign-in methods."), retry: null });
        return undefined;
      }
      return describeFailure(err);
    }
  }

  function confirmed() {
    const retry = reauth?.retry;
    setReauth(null);
    if (retry) retry();
    else setStatus("Thank you. You can now make the change.");
  }

  /** Leaves the confirmation and the change it was for; focus goes back to where that change started. */
  function cancelReauth() {
    setReauth(null);
    back(mode.kind === "remove" ? `remove:${mode.factor.id}` : mode.kind === "passkey" ? "add-passkey" : "setup-totp");
  }

  const columns: Column<Factor>[] = [
    { header: "Name", rowHeader: true, cell: factorName },
    { header: "Type", detail: true, cell: (f) => FACTOR_TYPES[f.type] },
    { header: "Added", detail: true, cell: (f) => <DateTime value={f.createdAt} /> },
    { header: "Last used", detail: true, cell: (f) => (f.lastUsedAt ? <DateTime value={f.lastUsedAt} /> : "never") },
    actionsColumn((f: Factor) => (
      <button
        type="button"
        className="button danger small"
        data-focus={`remove:${f.id}`}
        aria-expanded={mode.kind === "remove" && mode.factor.id === f.id}
        onClick={() => {
          setError(null);
          setStatus("");
          setMode({ kind: "remove", factor: f });
        }}
      >
        Remove<span className="visually-hidden"> {`${FACTOR_TYPES[f.type].toLowerCase()} ${factorName(f)}`}</span>
      </button>
    )),
  ];

  const busy = pending !== null;
  let form = null;
  if (reauth) {
    form = <ConfirmIdentity username={user.username} csrfToken={csrfToken} reason={reauth.reason} onConfirmed={confirmed} onCancel={cancelReauth} />;
  } else if (mode.kind === "totp") {
    form = (
      <TotpSetup
        enrolment={mode.enrolment}
        busy={busy}
        error={error?.where === "totp" ? error : null}
        onConfirm={confirmTotp}
        onCancel={() => back("setup-totp")}
      />
    );
  } else if (mode.kind === "passkey") {
    form = <PasskeySetup busy={busy} error={error?.where === "passkey" ? error : null} onCreate={createPasskey} onCancel={() => back("add-passkey")} />;
  } else if (mode.kind === "remove") {
    const { factor } = mode;
    form = (
      <section className="step-panel">
        <FactorStep
          key={factor.id}
          level={3}
          title={`Remove ${FACTOR_TYPES[factor.type].toLowerCase()} “${factorName(factor)}”`}
          intro={<p className="muted small">To remove it, confirm it's you with a code from your authenticator app or with a passkey.</p>}
          submitLabel="Remove"
          danger
          onAnswer={(answer) => remove(factor, answer)}
          onCancel={() => back(`remove:${factor.id}`)}
        />
      </section>
    );
  }

  return (
    <section ref={sectionRef} aria-labelledby={headingId} className="connected sign-in-methods">
      <h2 id={headingId} tabIndex={-1} data-focus="heading">
        Sign-in methods
      </h2>
      <p className="muted small">
        After your password, {brand.name} asks for a second step: a code from an authenticator app or a passkey. Apps can only access
        your payment accounts after this second step.
      </p>
      <ErrorAlert message={error?.where === "section" ? error.message : null} />
      <StatusMessage text={status} />
      <LoadState
        loading={state.status === "loading"}
        error={state.status === "failed" ? state.message : null}
        isEmpty={factors === null}
        onRetry={reload}
      >
        <DataTable
          caption="Your sign-in methods"
          columns={columns}
          rows={factors ?? []}
          rowKey={(f) => f.id}
          empty="You have no authenticator app or passkey yet: you sign in with your password only."
        />
        {form}
        {mode.kind === "list" && !reauth && (
          <div className="form-actions">
            <button
              type="button"
              className="button secondary"
              data-focus="setup-totp"
              aria-disabled={busy || undefined}
              aria-busy={pending === "setup-totp" || undefined}
              onClick={() => setUpTotp()}
            >
              Set up an authenticator app
            </button>
            <button
              type="button"
              className="button secondary"
              data-focus="add-passkey"
              onClick={() => {
                setError(null);
                setStatus("");
                setMode({ kind: "passkey" });
              }}
            >
              Add a passkey
            </button>
          </div>
        )}
      </LoadState>
    </section>
  );
}
