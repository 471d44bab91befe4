/**
 * Reading HTTP Basic client credentials: RFC 7617 §2 (`Basic` token68 of base64(user-id
 * ":" password)), RFC 6749 §2.3.1 (client id and secret are form-urlencoded, Appendix B,
 * before base64).
 */
import { describe, expect, it } from "vitest";
import { parseBasicCredentials } from "./client-auth.js";

const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");
const basic = (s: string) => `Basic ${b64(s)}`;

describe("parseBasicCredentials (RFC 7617 §2, RFC 6749 §2.3.1)", () => {
  it.each([
    ["plain id and secret", basic("client:secret"), "client", "secret"],
    ["the scheme in lower case (RFC 9110 §11.1: case-insensitive)", `basic ${b64("client:secret")}`, "client", "secret"],
    ["the scheme in upper case", `BASIC ${b64("client:secret")}`, "client", "secret"],
    ["several spaces before and after the credentials", `Basic   ${b64("client:secret")}  `, "client", "secret"],
    ["a form-encoded colon in the id (§2.3.1)", basic("a%3Ab:secret"), "a:b", "secret"],
    ["+ and escapes in the secret form-decoded (Appendix B)", basic("client:p%40ss+w%2Bord"), "client", "p@ss w+ord"],
    ["a raw colon in the secret (RFC 7617: split at the first colon)", basic("client:se:cr:et"), "client", "se:cr:et"],
    ["an empty secret", basic("client:"), "client", ""],
    ["UTF-8 id and secret (RFC 7617 §2.1 charset)", basic("cl\u00efent:s\u00e9cret"), "cl\u00efent", "s\u00e9cret"],
    ["percent-encoded UTF-8", basic("cl%C3%AFent:s%C3%A9cret"), "cl\u00efent", "s\u00e9cret"],
  ])("decodes %s", (_what, header, id, secret) => {
    expect(parseBasicCredentials(header)).toEqual({ id, secret });
  });

  it.each([
    ["no header", undefined],
    ["an empty header", ""],
    ["another scheme", "Bearer abcdef"],
    ["Digest", `Digest ${b64("client:secret")}`],
    ["the scheme without credentials", "Basic"],
    ["the scheme and a space", "Basic "],
    ["a tab instead of a space (RFC 9110 §11.4: 1*SP)", `Basic\t${b64("client:secret")}`],
    ["characters outside base64", "Basic !!!!"],
    ["base64url characters", "Basic a-b_"],
    ["base64 without its padding (RFC 4648 §3.2)", `Basic ${b64("client:s").replace(/=+$/, "")}`],
    ["three padding characters", "Basic YQ==="],
    ["padding inside", "Basic YQ==YWJj"],
    ["a second token after the credentials", `Basic ${b64("client:secret")} extra`],
    ["no colon (RFC 7617: user-id \":\" password)", basic("clientsecret")],
    ["an empty client id", basic(":secret")],
    ["a malformed escape in the id", basic("cli%zzent:secret")],
    ["a malformed escape in the secret", basic("client:sec%E0%A4%A")],
  ])("refuses %s", (_what, header) => {
    expect(parseBasicCredentials(header)).toBeUndefined();
  });
});
