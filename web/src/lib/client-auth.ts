/**
 * The pure parts of an app's client authentication settings (pages/admin/AppSecurity.tsx): the
 * methods in words and which ones a security profile allows, the tls_client_auth certificate
 * names (RFC 8705 §2.1.2) and what a form's certificate name sends.
 */
import { FAPI2_AUTH_METHODS } from "../../../server/src/kernel/auth-methods";
import type { SecurityProfile, TlsClientAuth, TlsClientAuthParameter, TokenEndpointAuthMethod } from "../api/admin";

/** A client authentication method as the console offers it. */
export interface AuthMethodChoice {
  value: TokenEndpointAuthMethod;
  label: string;
  hint: string;
}

/** Every client authentication method, in the order the console lists them. */
export const AUTH_METHODS: readonly AuthMethodChoice[] = [
  { value: "client_secret_basic", label: "HTTP Basic (client_secret_basic)", hint: "Consumer key and secret in the Authorization header." },
  { value: "client_secret_post", label: "Form body (client_secret_post)", hint: "client_id and client_secret in the request body, as many libraries send them." },
  { value: "private_key_jwt", label: "Signed JWT (private_key_jwt)", hint: "A client assertion signed with one of the app's signing keys (register them below)." },
  {
    value: "tls_client_auth",
    label: "CA-issued certificate (tls_client_auth)",
    hint: "Mutual TLS with a certificate from a trusted CA (e.g. an eIDAS QWAC) carrying the certificate name set below (RFC 8705).",
  },
  {
    value: "self_signed_tls_client_auth",
    label: "Self-signed certificate (self_signed_tls_client_auth)",
    hint: "Mutual TLS with a certificate whose public key is one of the app's signing keys (register them below; RFC 8705).",
  },
];

/** The methods an app of `profile` may use: all of them, or for FAPI 2.0 private_key_jwt and mutual TLS only. */
export function authMethodsFor(profile: SecurityProfile): readonly AuthMethodChoice[] {
  return profile === "fapi2" ? AUTH_METHODS.filter((m) => FAPI2_AUTH_METHODS.includes(m.value)) : AUTH_METHODS;
}

/**
 * The methods to keep when an app switches to FAPI 2.0: those of `methods` FAPI 2.0 allows, or
 * undefined when none (the server then sets private_key_jwt).
 */
export function fapi2MethodsOf(methods: readonly TokenEndpointAuthMethod[]): TokenEndpointAuthMethod[] | undefined {
  const kept = methods.filter((m) => FAPI2_AUTH_METHODS.includes(m));
  return kept.length > 0 ? kept : undefined;
}

/** The methods verified with the app's registered public keys (setAppKeys). */
const KEYED_METHODS: readonly TokenEndpointAuthMethod[] = ["private_key_jwt", "self_signed_tls_client_auth"];

/** Whether any of `methods` needs the app's signing keys (then the server keeps them). */
export function usesSigningKeys(methods: readonly TokenEndpointAuthMethod[]): boolean {
  return methods.some((m) => KEYED_METHODS.includes(m));
}

/** The names a tls_client_auth certificate may be identified by, in words, with an example value each. */
export const TLS_CLIENT_AUTH_PARAMETERS: ReadonlyArray<{ value: TlsClientAuthParameter; label: string; example: string }> = [
  { value: "tls_client_auth_subject_dn", label: "Subject DN", example: "CN=tpp.example, O=Example TPP, C=DE" },
  { value: "tls_client_auth_san_dns", label: "DNS name", example: "tpp.example" },
  { value: "tls_client_auth_san_uri", label: "URI", example: "https://tpp.example/" },
  { value: "tls_client_auth_san_ip", label: "IP address", example: "192.0.2.10" },
  { value: "tls_client_auth_san_email", label: "Email address", example: "ops@tpp.example" },
];

/** The example value of a certificate name of `parameter`, for its field's placeholder. */
export function tlsClientAuthExample(parameter: TlsClientAuthParameter): string {
  return TLS_CLIENT_AUTH_PARAMETERS.find((p) => p.value === parameter)!.example;
}

/**
 * What a form's certificate name sends as setAppSettings `tlsClientAuth`: the name when a value
 * is given (trimmed); null to remove the app's name when the value is blank; undefined (left
 * out) when it is blank and the app has none.
 */
export function tlsClientAuthInput(current: TlsClientAuth | null, parameter: TlsClientAuthParameter, value: string): TlsClientAuth | null | undefined {
  const trimmed = value.trim();
  if (trimmed !== "") return { parameter, value: trimmed };
  return current ? null : undefined;
}

/**
 * The server's BAD_USER_INPUT message about `field` ("tlsClientAuth: tls_client_auth_san_ip
 * must be …", admin/validation.ts inputError) without the field's name, ending with a full
 * stop; undefined when it is about another field. Its first word is kept as it is: it is often
 * a parameter's name.
 */
export function inputMessageAbout(field: string, message: string): string | undefined {
  const prefix = `${field}: `;
  const about = message.startsWith(prefix) ? message.slice(prefix.length).trim() : "";
  if (about === "") return undefined;
  return /[.!?]$/.test(about) ? about : `${about}.`;
}
