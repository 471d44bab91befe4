/**
 * The bank's identity providers as the console shows and edits them: the form's values and the
 * input they make, what a provider is used by, and the sign-in choices of an app or a product.
 */
import type { CreateIdentityProviderInput, IdentityProvider, IdentityProviderOption, UpstreamClientAuth } from "../api/admin";

/** How Tollgate authenticates at a provider, as the console words it. */
export const UPSTREAM_CLIENT_AUTH_METHODS: ReadonlyArray<{ value: UpstreamClientAuth; label: string }> = [
  { value: "private_key_jwt", label: "private_key_jwt (Tollgate's signing keys)" },
  { value: "client_secret_basic", label: "client_secret_basic (a client secret)" },
];

/** A client authentication method in words ("private_key_jwt (Tollgate's signing keys)"). */
export function clientAuthName(method: UpstreamClientAuth): string {
  return UPSTREAM_CLIENT_AUTH_METHODS.find((m) => m.value === method)?.label ?? method;
}

/** The sign-in of an app or product that names no identity provider. */
export const OWN_SIGN_IN = "Tollgate's own sign-in";

/** The choices of an app's or a product's sign-in: Tollgate's own (the value ""), then each provider by name. */
export function signInOptions(providers: readonly IdentityProviderOption[]): Array<{ value: string; label: string }> {
  return [{ value: "", label: OWN_SIGN_IN }, ...providers.map((p) => ({ value: p.id, label: p.name }))];
}

/** Where PSUs sign in, in words: the provider's name, or Tollgate's own sign-in. */
export function signInName(provider: IdentityProviderOption | null): string {
  return provider?.name ?? OWN_SIGN_IN;
}

/** "1 app", "2 apps, 1 API product", or "Not used". */
export function usedBy(provider: Pick<IdentityProvider, "apps" | "apiProducts">): string {
  const count = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;
  const parts = [provider.apps.length > 0 ? count(provider.apps.length, "app") : "", provider.apiProducts.length > 0 ? count(provider.apiProducts.length, "API product") : ""];
  return parts.filter(Boolean).join(", ") || "Not used";
}

/** What the create and edit forms of a provider hold; a type alias, as useFields needs. */
export type IdentityProviderDraft = {
  name: string;
  issuer: string;
  clientId: string;
  clientAuthMethod: UpstreamClientAuth;
  /** A new client secret; blank: none given (kept when editing). */
  clientSecret: string;
  /** As typed: separated by spaces or commas. */
  scopes: string;
  customerNumberClaim: string;
  /** As typed: separated by spaces or commas. */
  scaAcrValues: string;
};

/** The form's values for a new provider (private_key_jwt, scope openid), or for editing `provider` (no secret: it is never shown). */
export function identityProviderDraft(provider?: IdentityProvider): IdentityProviderDraft {
  return {
    name: provider?.name ?? "",
    issuer: provider?.issuer ?? "",
    clientId: provider?.clientId ?? "",
    clientAuthMethod: provider?.clientAuthMethod ?? "private_key_jwt",
    clientSecret: "",
    scopes: provider?.scopes.join(" ") ?? "openid",
    customerNumberClaim: provider?.customerNumberClaim ?? "",
    scaAcrValues: provider?.scaAcrValues.join(" ") ?? "",
  };
}

/** Words of a list as typed: separated by spaces or commas, each once. */
function listOf(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter((s) => s !== ""))];
}

/**
 * The input of createIdentityProvider or updateIdentityProvider: every setting (an update
 * replaces them all), texts trimmed, an empty customer number claim null (`sub`). The client
 * secret goes as typed, and only when non-blank with client_secret_basic: a blank one keeps the
 * stored secret, and private_key_jwt has none.
 */
export function identityProviderInput(draft: IdentityProviderDraft): CreateIdentityProviderInput {
  const secret = draft.clientAuthMethod === "client_secret_basic" && draft.clientSecret.trim() !== "" ? { clientSecret: draft.clientSecret } : {};
  return {
    name: draft.name.trim(),
    issuer: draft.issuer.trim(),
    clientId: draft.clientId.trim(),
    clientAuthMethod: draft.clientAuthMethod,
    ...secret,
    scopes: listOf(draft.scopes),
    customerNumberClaim: draft.customerNumberClaim.trim() || null,
    scaAcrValues: listOf(draft.scaAcrValues),
  };
}
