/**
 * The JSON bodies of the sign-in, consent and factor calls, checked with zod before any
 * work: bounded strings of clean text, and WebAuthn responses in the shape
 * @simplewebauthn/browser sends (the library verifies their content).
 */
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import { z } from "zod";
import { InvalidRequest } from "../kernel/errors.js";
import { SIGN_IN_PASSWORD_MAX_LENGTH, SIGN_IN_USERNAME_MAX_LENGTH } from "../kernel/limits.js";
import { isCleanText } from "../kernel/text.js";
import type { FactorProof } from "./factors.js";

const cleanText = (max: number) => z.string().min(1).max(max).refine(isCleanText, "must be well-formed text without NUL");

/** base64url of at most `max` characters. */
const base64url = (max: number) => z.string().min(1).max(max).regex(/^[A-Za-z0-9_-]+$/, "must be base64url");

export const loginBody = z.object({ username: cleanText(SIGN_IN_USERNAME_MAX_LENGTH), password: cleanText(SIGN_IN_PASSWORD_MAX_LENGTH) });

export const consentBody = z.discriminatedUnion("approve", [
  z.object({
    approve: z.literal(true),
    scopes: z.array(cleanText(200)).max(100),
    /** PSD2 account access: the IBANs of the accounts the PSU chose (consents/accounts.ts). */
    accounts: z.array(cleanText(34)).max(20).optional(),
    /** PSD2 payment: the IBAN of the account the PSU pays from. */
    debtorAccount: cleanText(34).optional(),
  }),
  z.object({ approve: z.literal(false) }),
]);

/** A factor's display name, chosen by its user. */
export const factorName = cleanText(100);

/** An authenticator's answer to a sign-in challenge (WebAuthn Level 3 §5.2.2, as JSON). */
const authenticationResponse = z.object({
  id: base64url(1366),
  rawId: base64url(1366),
  type: z.literal("public-key"),
  response: z.object({
    clientDataJSON: base64url(4096),
    authenticatorData: base64url(4096),
    signature: base64url(1024),
    userHandle: base64url(128).optional(),
  }),
  clientExtensionResults: z.object({}).passthrough(),
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
});

/** An authenticator's answer to a registration challenge (WebAuthn Level 3 §5.2.1, as JSON). */
export const registrationResponse = z.object({
  id: base64url(1366),
  rawId: base64url(1366),
  type: z.literal("public-key"),
  response: z
    .object({
      clientDataJSON: base64url(4096),
      attestationObject: base64url(8192),
      transports: z.array(z.string().max(32)).max(8).optional(),
    })
    .passthrough(),
  clientExtensionResults: z.object({}).passthrough(),
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
});

/** A TOTP code as typed (its format is judged by the verdict, like its value), or a WebAuthn assertion. */
const proofBody = z.discriminatedUnion("method", [
  z.object({ method: z.literal("totp"), code: z.string().max(32) }),
  z.object({ method: z.literal("webauthn"), response: authenticationResponse }),
]);

/** Parses a JSON body with a zod schema. @throws InvalidRequest naming the first problem. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InvalidRequest(`invalid body: ${issue.path.join(".") || "body"}: ${issue.message}`);
  }
  return parsed.data;
}

/** The second factor in a body `{method: "totp", code}` or `{method: "webauthn", response}`. @throws InvalidRequest */
export function factorProof(body: unknown): FactorProof {
  const proof = parseBody(proofBody, body);
  return proof.method === "totp" ? proof : { method: "webauthn", response: proof.response as AuthenticationResponseJSON };
}

/** A registration response body. @throws InvalidRequest */
export function parseRegistration(body: unknown): { response: RegistrationResponseJSON; name: string | undefined } {
  const parsed = parseBody(z.object({ response: registrationResponse, name: factorName.optional() }), body);
  return { response: parsed.response as RegistrationResponseJSON, name: parsed.name };
}
