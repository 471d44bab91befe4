import { useState, type FormEvent } from "react";
import { Link } from "react-router";
import { IDENTITY_PROVIDER_OPTIONS, SET_APP_SETTINGS, type AppDetail } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { SelectField } from "../../components/Field";
import { PanelForm } from "../../components/FormLayouts";
import { LoadState } from "../../components/LoadState";
import { signInName, signInOptions } from "../../lib/identity-providers";
import { routes } from "../../lib/routes";
import { useAction, useQuery } from "../../lib/useGraphQL";

/**
 * "Sign-in": where the app's PSUs sign in (setAppSettings `identityProviderId`): Tollgate's own
 * sign-in, or one of the bank's identity providers, which comes before its API products' choice.
 */
export function AppSignIn({ app, onChange }: { app: AppDetail; onChange: (app: AppDetail) => void }) {
  const query = useQuery(IDENTITY_PROVIDER_OPTIONS);
  const action = useAction();
  const [choice, setChoice] = useState(app.identityProvider?.id ?? "");
  // A provider the list does not have (deleted meanwhile) is still offered as the app's current one.
  const providers = query.data?.identityProviders ?? [];
  const offered = app.identityProvider && !providers.some((p) => p.id === app.identityProvider!.id) ? [...providers, app.identityProvider] : providers;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    void action.run(async () => {
      const { setAppSettings } = await graphql(SET_APP_SETTINGS, { appId: app.id, input: { identityProviderId: choice || null } });
      onChange(setAppSettings);
      return `Sign-in saved: the app's PSUs sign in with ${signInName(setAppSettings.identityProvider)} from now on.`;
    });
  }

  return (
    <PanelForm
      mutation="setAppSettings"
      title="Sign-in"
      intro={
        <p className="muted small">
          Where the app's PSUs sign in. With Tollgate's own sign-in, an API product that names an identity provider still sends its PSUs there. Now:{" "}
          <strong>{signInName(app.identityProvider)}</strong>. <Link to={routes.identityProviders()}>Identity providers</Link>
        </p>
      }
      action={action}
      submitLabel="Save sign-in"
      onSubmit={onSubmit}
    >
      <LoadState loading={query.loading} error={query.error} isEmpty={!query.data} onRetry={query.reload}>
        <SelectField label="Sign-in" value={choice} onChange={setChoice} options={signInOptions(offered)} />
      </LoadState>
    </PanelForm>
  );
}
