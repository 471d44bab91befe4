import { describe, expect, it } from "vitest";
import { newClientSecret, newRegistrationAccessToken } from "./credentials.js";
import { RegistrationError } from "./errors.js";
import { checkIssuedMembers, type IssuedMembers } from "./management.js";

const token = newRegistrationAccessToken();
const secret = newClientSecret();
const ISSUED: IssuedMembers = {
  clientId: "client-1",
  clientIdIssuedAt: 1_772_000_000,
  registrationClientUri: "https://bank.example/oauth2/v1/register/client-1",
  registrationAccessTokenHash: token.hash,
  clientSecretHash: secret.hash,
};
/** Every issued member, as the last client information response carried them. */
const ECHO = {
  client_id: "client-1",
  client_id_issued_at: 1_772_000_000,
  registration_client_uri: ISSUED.registrationClientUri,
  registration_access_token: token.value,
  client_secret: secret.value,
  client_secret_expires_at: 0,
};

function expectRefused(body: unknown, description: RegExp, issued: IssuedMembers = ISSUED) {
  let error: unknown;
  try {
    checkIssuedMembers(body, issued);
  } catch (e) {
    error = e;
  }
  expect(error, "the update was accepted").toBeInstanceOf(RegistrationError);
  expect((error as RegistrationError).error).toBe("invalid_client_metadata");
  expect((error as RegistrationError).message).toMatch(description);
}

describe("checkIssuedMembers (RFC 7592 section 2.2)", () => {
  it("needs the client's own client_id", () => {
    expect(() => checkIssuedMembers({ client_id: "client-1" }, ISSUED)).not.toThrow();
    expectRefused({}, /must carry the client's client_id/);
    expectRefused({ client_id: null }, /must carry the client's client_id/);
    expectRefused({ client_id: "client-2" }, /client_id is not this client's/);
    expectRefused({ client_id: ["client-1"] }, /client_id is not this client's/);
    expectRefused([], /must be a JSON object/);
  });

  it("accepts the issued members echoed back unchanged, or null", () => {
    expect(() => checkIssuedMembers(ECHO, ISSUED)).not.toThrow();
    expect(() => checkIssuedMembers({ client_id: "client-1", client_id_issued_at: null, registration_access_token: null, client_secret: null }, ISSUED)).not.toThrow();
  });

  it("refuses an issued member with another value", () => {
    expectRefused({ ...ECHO, client_id_issued_at: 1 }, /client_id_issued_at is not the value this server issued/);
    expectRefused({ ...ECHO, client_id_issued_at: "1772000000" }, /client_id_issued_at is not/);
    expectRefused({ ...ECHO, registration_client_uri: "https://bank.example/oauth2/v1/register/other" }, /registration_client_uri is not/);
    expectRefused({ ...ECHO, registration_access_token: newRegistrationAccessToken().value }, /registration_access_token is not/);
    expectRefused({ ...ECHO, registration_access_token: token.hash }, /registration_access_token is not/);
    expectRefused({ ...ECHO, client_secret_expires_at: 1_900_000_000 }, /client_secret_expires_at is not/);
  });

  it("refuses a client_secret the server did not issue: a client never chooses its secret", () => {
    expectRefused({ ...ECHO, client_secret: "my-own-secret" }, /client_secret is not the issued secret/);
    expectRefused({ ...ECHO, client_secret: 1 }, /client_secret is not the issued secret/);
    const secretless = { ...ISSUED, clientSecretHash: undefined };
    expectRefused({ client_id: "client-1", client_secret: secret.value }, /client_secret is not the issued secret/, secretless);
    expectRefused({ client_id: "client-1", client_secret_expires_at: 0 }, /client_secret_expires_at is not/, secretless);
  });
});
