import { MY_PSD2_CONSENTS, REVOKE_MY_PSD2_CONSENT, type MyPsd2Consent } from "../../api/admin";
import { graphql } from "../../api/graphql";
import { ConsentDetails, Psd2Status } from "../../components/AuthorizationDetailsList";
import { ConfirmButton } from "../../components/ConfirmButton";
import { DateTime } from "../../components/Format";
import { formatDate } from "../../lib/authorization-details";
import { useAction, useQuery } from "../../lib/useGraphQL";
import { AppList, type AppListSection } from "./AppList";

const PSD2_CONSENTS: AppListSection = {
  id: "psd2-consents",
  title: "PSD2 consents",
  intro:
    "The payments and the access to your account data that apps asked for. Revoking an active consent withdraws it at once: the app can no longer use it.",
  empty: "You have not given any PSD2 consents.",
};

/**
 * "PSD2 consents" of the Account page: the payments and account access the user approved
 * (or was asked for) with RFC 9396 authorization details or a Berlin Group consent, in plain
 * words, with their status, and "Revoke" for an active one.
 */
export function Psd2Consents() {
  const query = useQuery(MY_PSD2_CONSENTS);
  const action = useAction();
  const consents = query.data?.myPsd2Consents ?? [];
  const locale = navigator.language;

  function revoke(consent: MyPsd2Consent) {
    void action.run(async () => {
      const { revokeMyPsd2Consent: revoked } = await graphql(REVOKE_MY_PSD2_CONSENT, { id: consent.id });
      query.setData((d) => ({ myPsd2Consents: d.myPsd2Consents.map((c) => (c.id === revoked.id ? revoked : c)) }));
      return `You withdrew your consent: ${consent.appName} can no longer use it.`;
    }, consent.id);
  }

  const revokeButton = (consent: MyPsd2Consent) =>
    consent.status === "valid" && (
      <ConfirmButton
        label="Revoke"
        context={`consent for ${consent.appName} asked ${new Date(consent.createdAt).toLocaleString()}`}
        question={`Revoke this consent? ${consent.appName} can no longer use it.`}
        confirmLabel="Yes, revoke consent"
        {...action.button(consent.id)}
        onConfirm={() => revoke(consent)}
      />
    );

  return (
    <AppList section={PSD2_CONSENTS} action={action} query={query} items={consents} actions={revokeButton}>
      {(consent) => (
        <>
          <p className="muted small">
            Operated by <bdi>{consent.organizationName}</bdi> · asked <DateTime value={consent.createdAt} zone />
          </p>
          <p className="small">
            <Psd2Status status={consent.status} reader="psu" /> since <DateTime value={consent.statusChangedAt} zone />
            {consent.validUntil && <> · valid until {formatDate(consent.validUntil, locale)}</>}
          </p>
          <ConsentDetails json={consent.authorizationDetails} label="Details" />
        </>
      )}
    </AppList>
  );
}
