/**
 * Sign-in at the bank's identity provider (OpenID Connect Core §3.1, Tollgate the relying
 * party, through openid-client): the upstream leg of an authorization request whose app or
 * API products name an identity provider. {@link Federation.begin} sends the PSU there, with
 * PAR when offered (RFC 9126), PKCE (RFC 7636), a `nonce` and a `state` bound to the
 * interaction; {@link Federation.complete} checks the answer (`iss`, RFC 9207; the ID token's
 * signature against the provider's JWK Set, `aud`, `exp`, `nonce`, `auth_time`) and says who
 * the PSU is and whether the sign-in was strong customer authentication. The provider's
 * tokens are dropped: nothing of them reaches a TPP.
 *
 * Nothing secret is stored per sign-in: the PKCE verifier and the nonce are HMACs of the
 * state under a server secret, and the interaction keeps only the state's SHA-256.
 */
import { createHmac, randomBytes } from "node:crypto";
import * as oidc from "openid-client";
import type { KeyEncryption } from "../kernel/key-encryption.js";
import { hashSecret } from "../kernel/secrets.js";
import type { Keyring } from "../keys/keyring.js";
import type { InteractionRecord } from "../stores/interactions.js";
import type { IdentityProviderRecord, IdentityProviderStore } from "../stores/identity-providers.js";
import type { InteractionStore } from "../stores/interactions.js";

/** The path of the identity providers' answers (their redirect URI: `<AUTH_URL>/federation/callback`). */
export const FEDERATION_CALLBACK_PATH = "/federation/callback";

/** The path that sends a PSU back to the identity provider of an interaction at the login stage (`?interaction=<id>`). */
export const FEDERATION_START_PATH = "/federation/start";

/** How long the metadata of an identity provider is used before it is read again, milliseconds. */
const METADATA_TTL_MS = 3_600_000;

/** Lifetime of Tollgate's client assertions at an identity provider, seconds (RFC 7523 §3: short). */
const ASSERTION_LIFETIME_SECONDS = 60;

/** Clock skew allowed between Tollgate and an identity provider when an authentication must be new, seconds. */
const CLOCK_SKEW_SECONDS = 5;

/** The `amr` values (RFC 8176 §2) an upstream sign-in may carry into Tollgate's tokens. */
const AMR = /^[a-z]{2,16}$/;

/** The identity provider cannot be reached or answered with a server error: the TPP gets `temporarily_unavailable`. */
export class UpstreamUnavailable extends Error {}

/** The identity provider's answer is an error, or does not verify: the TPP gets `access_denied` (or the mapped error). */
export class UpstreamRefused extends Error {
  constructor(
    readonly error: "access_denied" | "temporarily_unavailable",
    description: string,
    /** Why, for the audit: the provider's own error, or the check that failed. */
    readonly reason: string,
  ) {
    super(description);
  }
}

/** Who signed in upstream, and how. */
export interface UpstreamIdentity {
  identityProvider: IdentityProviderRecord;
  /** The provider's `sub`. */
  subject: string;
  /** The provider's customer number claim's value; null when it has none. */
  customerNumber: string | null;
  /** The provider's `acr`; null when none. */
  acr: string | null;
  /** Whether `acr` is one of the provider's SCA values (PSD2 RTS Art. 4), for an authentication made after Tollgate asked. */
  sca: boolean;
  /** RFC 8176 methods: the provider's well-formed ones, with `mfa` exactly when `sca`. */
  amr: string[];
  authTime: Date;
}

export interface FederationSettings {
  stores: { identityProviders: IdentityProviderStore; interactions: InteractionStore };
  /** Opens client secrets (sealed for `identity-provider:<id>`). */
  encryption: KeyEncryption;
  /** Signs Tollgate's `private_key_jwt` client assertions with its own keys (published at its jwks_uri). */
  keyring: Keyring;
  /** A server secret the PKCE verifier and nonce of each state are derived under. */
  secret: Buffer;
  /** AUTH_URL: `<AUTH_URL>/federation/callback` is the redirect URI. */
  authUrl: string;
  /** The longest wait for each call to an identity provider, seconds. */
  timeoutSeconds: number;
  /**
   * How old the provider's authentication may be, seconds (SCA_IDLE_SECONDS: the inactivity
   * allowed after authenticating, RTS Art. 4(3)(d)): sent as `max_age`, and checked on `auth_time`.
   */
  freshSeconds: number;
}

export interface Federation {
  /**
   * The URL to send the PSU to, to sign in at the interaction's identity provider: the
   * request pushed first when the provider offers PAR. Records the state's hash on the
   * interaction, replacing an earlier one.
   * @param hints - `max_age` (seconds, null: none) of the TPP's request, sent when shorter than
   *   {@link FederationSettings.freshSeconds}; `login_hint`, `ui_locales` and, when the request
   *   needs SCA, `acr_values` and `prompt=login` (SCA in this authentication, not the provider's
   *   single sign-on) come from the interaction.
   * @returns the URL; undefined when the interaction is no longer at the login stage.
   * @throws UpstreamUnavailable when the provider is unknown, unreachable or refuses the pushed request.
   */
  begin(interaction: InteractionRecord, hints: { maxAge: number | null }): Promise<string | undefined>;
  /**
   * The interaction an answer at the callback belongs to, found by its `state` and
   * forgotten: each state is answered once. @returns undefined when none.
   */
  interactionOf(callback: URL): Promise<InteractionRecord | undefined>;
  /**
   * Redeems the answer's code and checks the ID token (OpenID Connect Core §3.1.3.7), with the
   * PKCE verifier and nonce of its state; the tokens are dropped.
   * @throws UpstreamRefused for the provider's error answer, or one that does not verify
   *   (`iss`, signature, `aud`, `exp`, `nonce`, `state`); UpstreamUnavailable when the
   *   provider cannot be reached or fails.
   */
  complete(interaction: InteractionRecord, callback: URL): Promise<UpstreamIdentity>;
  /** A client secret for `client_secret_basic` at the identity provider `identityProviderId`, sealed for it as stored. */
  sealClientSecret(identityProviderId: string, secret: string): string;
  /** Tollgate's redirect URI at every identity provider: `<AUTH_URL>/federation/callback`, to register there. */
  readonly redirectUri: string;
}

/** The context a provider's client secret is sealed for (kernel/key-encryption.ts). */
const secretContext = (identityProviderId: string) => `identity-provider:${identityProviderId}`;

/** The provider's errors Tollgate passes on as its own (RFC 6749 §4.1.2.1); any other is `access_denied`. */
function refusalOf(error: string): UpstreamRefused["error"] {
  return error === "temporarily_unavailable" || error === "server_error" ? "temporarily_unavailable" : "access_denied";
}

/** Whether a thrown error says the provider could not be reached or failed (network, timeout, 5xx). */
function unreachable(err: unknown): boolean {
  if (err instanceof oidc.ResponseBodyError) return err.status >= 500;
  const name = (err as { name?: unknown } | null)?.name;
  return err instanceof TypeError || name === "TimeoutError" || name === "AbortError" || (err as { code?: unknown } | null)?.code === "OAUTH_RESPONSE_IS_NOT_CONFORM";
}

/** An http issuer is taken only on the loopback interface (tests and the demo); anywhere else the provider must use https. */
function loopback(issuer: URL): boolean {
  return ["127.0.0.1", "localhost", "[::1]"].includes(issuer.hostname);
}

/** The ID token algorithm to ask for: the first of PS256, ES256, RS256 the provider signs with. */
function idTokenAlg(metadata: oidc.ServerMetadata): string {
  const offered = metadata.id_token_signing_alg_values_supported ?? ["RS256"];
  return ["PS256", "ES256", "RS256"].find((alg) => offered.includes(alg)) ?? "RS256";
}

/** The federation of a server. */
export function federation(settings: FederationSettings): Federation {
  const { stores, encryption, keyring, secret } = settings;
  const redirectUri = `${settings.authUrl}${FEDERATION_CALLBACK_PATH}`;
  const configurations = new Map<string, { updatedAt: number; loadedAt: number; config: Promise<oidc.Configuration> }>();

  /** `private_key_jwt` (RFC 7523 §2.2) with Tollgate's current PS256 key: `aud` the provider's issuer (RFC 7523bis). */
  const privateKeyJwt: oidc.ClientAuth = async (as, client, body) => {
    const iat = Math.floor(Date.now() / 1000);
    const exp = iat + ASSERTION_LIFETIME_SECONDS;
    const payload = { iss: client.client_id, sub: client.client_id, aud: as.issuer, jti: randomBytes(16).toString("base64url"), iat, exp };
    body.set("client_id", client.client_id);
    body.set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    body.set("client_assertion", await keyring.sign({ alg: "PS256", typ: "JWT", payload, expiresAt: new Date(exp * 1000) }));
  };

  async function configure(idp: IdentityProviderRecord): Promise<oidc.Configuration> {
    const issuer = new URL(idp.issuer);
    const insecure = issuer.protocol === "http:" && loopback(issuer);
    const auth = idp.clientAuthMethod === "client_secret_basic" ? oidc.ClientSecretBasic(encryption.open(idp.clientSecret ?? "", secretContext(idp.id)).toString("utf8")) : privateKeyJwt;
    const discovered = await oidc.discovery(issuer, idp.clientId, undefined, auth, { execute: insecure ? [oidc.allowInsecureRequests] : [], timeout: settings.timeoutSeconds });
    const metadata = discovered.serverMetadata();
    const config = new oidc.Configuration(metadata, idp.clientId, { id_token_signed_response_alg: idTokenAlg(metadata) }, auth);
    if (insecure) oidc.allowInsecureRequests(config);
    // The ID token's signature is checked against the provider's JWK Set (cached, fetched again for an unknown kid),
    // not left to TLS with the token endpoint (OpenID Connect Core §3.1.3.7 item 6 allows that; a bank's evidence does not).
    oidc.enableNonRepudiationChecks(config);
    config.timeout = settings.timeoutSeconds;
    return config;
  }

  /** The provider's configuration: discovered once, again after an hour or a change of its settings. */
  function configurationOf(idp: IdentityProviderRecord): Promise<oidc.Configuration> {
    const now = Date.now();
    const cached = configurations.get(idp.id);
    if (cached && cached.updatedAt === idp.updatedAt.getTime() && now - cached.loadedAt < METADATA_TTL_MS) return cached.config;
    const config = configure(idp);
    configurations.set(idp.id, { updatedAt: idp.updatedAt.getTime(), loadedAt: now, config });
    // A failed discovery is tried again at the next sign-in.
    config.catch(() => configurations.delete(idp.id));
    return config;
  }

  /** The PKCE verifier (43 characters, RFC 7636 §4.1) and the nonce of a state. */
  const derived = (purpose: string, state: string) => createHmac("sha256", secret).update(`${purpose}\0${state}`).digest("base64url");

  async function providerOf(interaction: InteractionRecord): Promise<IdentityProviderRecord> {
    const idp = interaction.identityProviderId === null ? undefined : await stores.identityProviders.find(interaction.identityProviderId);
    if (!idp) throw new UpstreamUnavailable("the bank's identity provider of this sign-in is no longer configured");
    return idp;
  }

  return {
    redirectUri,
    sealClientSecret: (identityProviderId, clientSecret) => encryption.seal(Buffer.from(clientSecret, "utf8"), secretContext(identityProviderId)),

    async begin(interaction, hints) {
      const idp = await providerOf(interaction);
      // The state carries when it was sent: its hash is what finds the interaction, so it cannot be changed.
      const state = `${randomBytes(32).toString("base64url")}.${Math.floor(Date.now() / 1000)}`;
      const parameters: Record<string, string> = {
        redirect_uri: redirectUri,
        scope: [...new Set(["openid", ...idp.scopes])].join(" "),
        state,
        nonce: derived("nonce", state),
        code_challenge: await oidc.calculatePKCECodeChallenge(derived("pkce", state)),
        code_challenge_method: "S256",
        ...(interaction.scaRequired && idp.scaAcrValues.length > 0 ? { acr_values: idp.scaAcrValues.join(" ") } : {}),
        ...(interaction.scaRequired ? { prompt: "login" } : {}),
        max_age: String(Math.min(hints.maxAge ?? Infinity, settings.freshSeconds)),
        ...(interaction.loginHint === null ? {} : { login_hint: interaction.loginHint }),
        ...(interaction.uiLocales === null ? {} : { ui_locales: interaction.uiLocales }),
      };
      try {
        const config = await configurationOf(idp);
        if (!(await stores.interactions.sendUpstream(interaction.id, hashSecret(state)))) return undefined;
        const par = config.serverMetadata().pushed_authorization_request_endpoint !== undefined;
        return (par ? await oidc.buildAuthorizationUrlWithPAR(config, parameters) : oidc.buildAuthorizationUrl(config, parameters)).href;
      } catch (err) {
        throw new UpstreamUnavailable(`the bank's identity provider ${idp.name} cannot be reached: ${(err as Error).message}`, { cause: err });
      }
    },

    async interactionOf(callback) {
      const state = callback.searchParams.get("state");
      return state ? stores.interactions.takeUpstream(hashSecret(state)) : undefined;
    },

    async complete(interaction, callback) {
      const idp = await providerOf(interaction);
      const state = callback.searchParams.get("state") ?? "";
      let claims: oidc.IDToken;
      try {
        const config = await configurationOf(idp);
        const tokens = await oidc.authorizationCodeGrant(config, callback, {
          pkceCodeVerifier: derived("pkce", state),
          expectedNonce: derived("nonce", state),
          expectedState: state,
          idTokenExpected: true,
          maxAge: settings.freshSeconds,
        });
        claims = tokens.claims()!;
      } catch (err) {
        if (err instanceof oidc.AuthorizationResponseError) {
          const error = err.error;
          throw new UpstreamRefused(refusalOf(error), `the bank's sign-in ended with ${error}`, `${error}: ${err.error_description ?? ""}`.slice(0, 200));
        }
        if (unreachable(err)) throw new UpstreamUnavailable(`the bank's identity provider ${idp.name} cannot be reached: ${(err as Error).message}`, { cause: err });
        throw new UpstreamRefused("access_denied", "the bank's sign-in could not be verified", String((err as Error).message).slice(0, 200));
      }
      const acr = typeof claims.acr === "string" ? claims.acr : null;
      const authTime = typeof claims.auth_time === "number" ? claims.auth_time : Math.floor(Date.now() / 1000);
      // SCA counts only if it happened after Tollgate asked for it (RTS Art. 4: in this authentication).
      const sentAt = Number(state.slice(state.lastIndexOf(".") + 1));
      const sca = acr !== null && idp.scaAcrValues.includes(acr) && authTime >= sentAt - CLOCK_SKEW_SECONDS;
      const upstreamAmr = Array.isArray(claims.amr) ? claims.amr.filter((m): m is string => typeof m === "string" && AMR.test(m) && m !== "mfa") : [];
      const claim = idp.customerNumberClaim === null ? claims.sub : claims[idp.customerNumberClaim];
      return {
        identityProvider: idp,
        subject: claims.sub,
        customerNumber: typeof claim === "string" && claim.length <= 64 ? claim : null,
        acr,
        sca,
        amr: [...new Set(upstreamAmr)].slice(0, 8).concat(sca ? ["mfa"] : []),
        authTime: new Date(authTime * 1000),
      };
    },
  };
}
