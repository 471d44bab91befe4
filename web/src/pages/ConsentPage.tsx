import { useEffect, useRef, useState, type FormEvent } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { InteractionApiError, isGone, signOutOfInteraction, submitConsent, type ConsentDecision, type Interaction } from "../api/interaction";
import { AuthorizationDetailsSection } from "../components/AuthorizationDetailsSection";
import { InteractionPage } from "../components/InteractionPage";
import { Heading, IncompleteLink, Page } from "../components/Page";
import { choiceDecision, describeAccessUntil, isPayment, type ConsentChoice } from "../lib/authorization-details";
import { leaveTo } from "../lib/navigation";
import { pageLocale } from "../lib/locale";
import { routes, type LoginNotice } from "../lib/routes";
import { toggled } from "../lib/sets";
import { describeFailure } from "../lib/text";
import { ErrorAlert, PendingStatus } from "../components/Notices";

const TITLE = "Allow access";

/**
 * /consent?interaction=<id>: the user grants (some of) the requested scopes and approves the
 * requested authorization details (choosing accounts where the request names none), or denies.
 * The app's and organization's names are the TPP's text: isolated (`<bdi>`) wherever they appear.
 */
export function ConsentPage() {
  const [params] = useSearchParams();
  const id = params.get("interaction");
  if (!id) return <IncompleteLink heading="This consent link is incomplete" />;
  return (
    <InteractionPage key={id} id={id} stage="consent" title={TITLE}>
      {(interaction, reload) => <ConsentForm interaction={interaction} onStale={reload} />}
    </InteractionPage>
  );
}

/** @param onStale - loads the interaction again (the session changed, e.g. a sign-in in another tab). */
function ConsentForm({ interaction, onStale }: { interaction: Interaction; onStale: () => void }) {
  const navigate = useNavigate();
  const { client, scopes, user, authorizationDetails: details } = interaction;
  // The relying party's ui_locales first: dates and amounts in the PSU's language (the words stay English).
  const locale = pageLocale(interaction.uiLocales, navigator.language);
  const [granted, setGranted] = useState<ReadonlySet<string>>(() => new Set(scopes.map((s) => s.name)));
  const [choice, setChoice] = useState<ConsentChoice>({ accounts: new Set(), debtorAccount: "" });
  const [pending, setPending] = useState<"allow" | "deny" | null>(null);
  const [leaving, setLeaving] = useState(false);
  const [error, setError] = useState<{ message: string; after: "allow" | "deny" } | null>(null);
  const allowRef = useRef<HTMLButtonElement>(null);
  const denyRef = useRef<HTMLButtonElement>(null);

  // The pressed button was disabled while waiting, which drops focus: give it back after a failure.
  useEffect(() => {
    if (error) (error.after === "allow" && !allowRef.current?.disabled ? allowRef : denyRef).current?.focus();
  }, [error]);

  async function decide(decision: ConsentDecision) {
    if (pending || leaving) return;
    const action = decision.approve ? "allow" : "deny";
    setPending(action);
    setError(null);
    try {
      const { redirectTo } = await submitConsent(interaction.id, interaction.csrfToken, decision);
      if (leaveTo(redirectTo)) {
        setLeaving(true);
        return;
      }
      setError({ message: "The server sent an unexpected response. Please try again.", after: action });
    } catch (err) {
      if (err instanceof InteractionApiError && isGone(err)) {
        navigate(routes.error(err.error, err.errorDescription), { replace: true });
        return;
      }
      if (err instanceof InteractionApiError && err.status === 401 && err.error === "login_required") {
        // Idle for too long since signing in (PSD2 RTS Art. 4(3)(d)): the interaction is back
        // at the sign-in stage, and the sign-in page says why (in the server's words, which
        // name its limit).
        const notice: LoginNotice = { reason: "inactive", message: err.errorDescription ?? "" };
        navigate(routes.login(interaction.id), { replace: true, state: { notice } });
        return;
      }
      if (err instanceof InteractionApiError && err.status === 403) {
        // Stale CSRF token (the session changed) or another browser's interaction: load it again.
        onStale();
        return;
      }
      setError({ message: describeFailure(err), after: action });
    } finally {
      setPending(null);
    }
  }

  // What the user chose for the authorization details, undefined while a needed choice is missing.
  const chosen = details ? choiceDecision(details, choice) : {};
  // The server grants a non-empty subset of the requested scopes, never nothing; a request
  // with authorization details may ask for no scope at all.
  const noneChecked = scopes.length > 0 && granted.size === 0;
  const cannotAllow = noneChecked || (scopes.length === 0 && !details) || chosen === undefined;

  /** "Not you? Sign out": back to the sign-in step of the same request, signed out. */
  async function notMe() {
    if (pending || leaving) return;
    setError(null);
    try {
      await signOutOfInteraction(interaction.id, interaction.csrfToken);
      navigate(routes.login(interaction.id), { replace: true });
    } catch (err) {
      setError({ message: describeFailure(err), after: "deny" });
    }
  }

  function onAllow(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (cannotAllow) return;
    void decide({ approve: true, scopes: scopes.map((s) => s.name).filter((name) => granted.has(name)), ...chosen });
  }

  const busy = pending !== null || leaving;
  const payments = details?.filter(isPayment).length ?? 0;
  return (
    <Page title={TITLE}>
      <Heading focus>
        <bdi>{client.name}</bdi>{" "}
        {payments === 0 ? "wants access to your accounts" : `asks you to approve ${payments === 1 ? "a payment" : `${payments} payments`}`}
      </Heading>
      {client.organization && (
        <p className="muted">
          Operated by <bdi>{client.organization}</bdi>
        </p>
      )}
      {user && (
        <p className="muted">
          <span>
            Signed in as <strong>{user.username}</strong>
            {interaction.identityProvider && (
              <>
                {" "}
                at <bdi>{interaction.identityProvider}</bdi>
              </>
            )}
          </span>
          {" · "}
          <button type="button" className="link-button" disabled={busy} onClick={() => void notMe()}>
            Not you? Sign out
          </button>
        </p>
      )}
      <form className="form" onSubmit={onAllow}>
        <ErrorAlert message={error?.message} />
        {details && (
          <AuthorizationDetailsSection
            clientName={client.name}
            details={details}
            accounts={interaction.accounts}
            choice={choice}
            onChange={setChoice}
            busy={busy}
            locale={locale}
          />
        )}
        {scopes.length > 0 ? (
          <fieldset className="scopes" aria-describedby={noneChecked ? "consent-none" : undefined}>
            <legend>
              <bdi>{client.name}</bdi> will be able to:
            </legend>
            <ul>
              {scopes.map((scope, i) => (
                <li key={`${i}:${scope.name}`} className="scope">
                  <input
                    id={`scope-${i}`}
                    type="checkbox"
                    name="scope"
                    value={scope.name}
                    checked={granted.has(scope.name)}
                    disabled={busy}
                    onChange={(e) => setGranted((prev) => toggled(prev, scope.name, e.target.checked))}
                  />
                  <label htmlFor={`scope-${i}`}>{scope.description || scope.name}</label>
                </li>
              ))}
            </ul>
          </fieldset>
        ) : (
          !details && (
            <p>
              <bdi>{client.name}</bdi> did not ask for any permissions, so there is nothing to allow.
            </p>
          )
        )}
        {noneChecked && (
          <p id="consent-none" className="hint">
            Select at least one permission to allow, or deny access.
          </p>
        )}
        {!details && interaction.accessUntil && scopes.length > 0 && (
          <p className="small">
            Access lasts {describeAccessUntil(interaction.accessUntil, locale)}. You can withdraw it at any time on your Account page.
          </p>
        )}
        <p className="muted small">
          Only allow access if you trust <bdi>{client.name}</bdi>.
        </p>
        <div className="actions">
          <button ref={allowRef} type="submit" className="button primary" disabled={busy || cannotAllow} aria-busy={pending === "allow" || undefined}>
            Allow
          </button>
          <button
            ref={denyRef}
            type="button"
            className="button secondary"
            disabled={busy}
            aria-busy={pending === "deny" || undefined}
            onClick={() => void decide({ approve: false })}
          >
            Deny
          </button>
        </div>
        <PendingStatus pending={pending} leaving={leaving} words={{ allow: "Allowing access…", deny: "Denying access…" }} />
      </form>
    </Page>
  );
}
