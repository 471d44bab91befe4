import fc from "fast-check";
import { generateKeyPair, SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import type { AuthorizationEvidence } from "../api/admin";
import { describeOutcome, detailsForExport, evidenceExport, evidenceFileName, oldestFirst } from "./evidence";
import { base64UrlText, decodeJws, prettyJson } from "./jws";
import { routes } from "./routes";

const b64u = (value: unknown) => Buffer.from(typeof value === "string" ? value : JSON.stringify(value), "utf8").toString("base64url");

describe("decoding a compact JWS", () => {
  it("reads the header and payload of a real signed request object, non-ASCII text and arrays included", async () => {
    const { privateKey } = await generateKeyPair("ES256");
    const claims = {
      iss: "demo-fapi-key",
      aud: "https://bank.example",
      authorization_details: [{ type: "payment_initiation", creditorName: "Müller & Söhne GmbH", instructedAmount: { currency: "EUR", amount: "1250.00" } }],
    };
    const jws = await new SignJWT(claims).setProtectedHeader({ alg: "ES256", kid: "demo-fapi-2026", typ: "oauth-authz-req+jwt" }).sign(privateKey);
    expect(decodeJws(jws)).toEqual({ ok: true, header: { alg: "ES256", kid: "demo-fapi-2026", typ: "oauth-authz-req+jwt" }, payload: claims });
  });

  it("decodes base64url's own letters (- and _) and every unpadded length", () => {
    // "?>>" and "~~~" are "Pz4+" and "fn5+" in base64: "Pz4-" and "fn5-" in base64url.
    for (const text of ["?>>", "~~~~", "~~~~~", "~~~~~~", "é"]) expect(base64UrlText(b64u(text))).toBe(text);
    expect(b64u("?>>")).toBe("Pz4-");
    expect(decodeJws(`${b64u({ alg: "PS256" })}.${b64u({ note: "?>>~~~" })}.c2ln`)).toEqual({ ok: true, header: { alg: "PS256" }, payload: { note: "?>>~~~" } });
  });

  it("says why a malformed one cannot be decoded, without throwing", () => {
    const header = b64u({ alg: "ES256" });
    const payload = b64u({ code: "abc" });
    const cases: [string, RegExp][] = [
      ["", /not a compact JWS/],
      ["not-a-jws", /not a compact JWS/],
      [`${header}.${payload}`, /not a compact JWS/],
      [`${header}.${payload}.sig.extra`, /not a compact JWS/],
      [`${header}..iv.ciphertext.tag`, /encrypted \(JWE\)/],
      [`${header}=.${payload}.sig`, /header is not base64url/],
      [`a.${payload}.sig`, /header is not base64url/],
      [`${b64u("not json")}.${payload}.sig`, /header is not JSON/],
      [`${b64u([1, 2])}.${payload}.sig`, /header is not a JSON object/],
      [`${b64u("null")}.${payload}.sig`, /header is not a JSON object/],
      [`${header}.${b64u("{\"code\":")}.sig`, /payload is not JSON/],
      [`${header}.${Buffer.from([0xff, 0xfe, 0x7b]).toString("base64url")}.sig`, /payload is not base64url-encoded UTF-8/],
      [`${header}.${payload}.`, /signature is missing/],
      [`${header}.${payload}.si+g`, /signature is missing or not base64url/],
      [` ${header}.${payload}.sig`, /header is not base64url/],
    ];
    for (const [input, reason] of cases) {
      const decoded = decodeJws(input);
      expect(decoded.ok, input).toBe(false);
      if (!decoded.ok) expect(decoded.reason, input).toMatch(reason);
    }
  });

  it("never throws, whatever the text", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.array(fc.string({ unit: fc.constantFrom(..."AZaz09-_.=+/ {}\"é") }), { maxLength: 6 }).map((parts) => parts.join("."))), (text) => {
        const decoded = decodeJws(text);
        expect(typeof decoded.ok).toBe("boolean");
      }),
    );
  });

  it("pretty-prints JSON two spaces a level", () => {
    expect(prettyJson({ a: [1], b: "c" })).toBe('{\n  "a": [\n    1\n  ],\n  "b": "c"\n}');
  });
});

const record = (id: string, answeredAt: string, outcome = "code"): AuthorizationEvidence => ({
  id,
  answeredAt,
  clientId: "demo-fapi-key",
  outcome,
  requestObject: `eyJhbGciOiJFUzI1NiJ9.${id}.sig`,
  authorizationResponse: outcome === "code" ? `eyJhbGciOiJQUzI1NiJ9.${id}.sig` : null,
});

describe("the evidence as the console shows and exports it", () => {
  it("names the outcome in words", () => {
    expect(describeOutcome("code")).toBe("Code issued");
    expect(describeOutcome("access_denied")).toBe("Refused: access_denied");
  });

  it("lists the records oldest first", () => {
    const later = record("b", "2026-11-29T12:00:00.000Z");
    const earlier = record("a", "2026-11-28T12:00:00.000Z");
    expect(oldestFirst([later, earlier]).map((e) => e.id)).toEqual(["a", "b"]);
  });

  it("names the file after the consent, with nothing a file name should not hold", () => {
    expect(evidenceFileName("cm3x5k2ab0001")).toBe("consent-cm3x5k2ab0001-evidence.json");
    expect(evidenceFileName("../a b/ç")).toBe("consent-.._a_b__-evidence.json");
  });

  it("exports the consent's facts and the records with the compact JWS strings exactly as received", () => {
    const evidence = [record("b", "2026-11-29T12:00:00.000Z", "access_denied"), { ...record("a", "2026-11-28T12:00:00.000Z"), extra: "left out" }];
    const exported = JSON.parse(evidenceExport({ id: "c1", kind: "payment_initiation" }, evidence, new Date("2026-11-30T08:00:00Z")));
    expect(exported).toEqual({
      exportedAt: "2026-11-30T08:00:00.000Z",
      consent: { id: "c1", kind: "payment_initiation" },
      evidence: [record("a", "2026-11-28T12:00:00.000Z"), record("b", "2026-11-29T12:00:00.000Z", "access_denied")],
    });
    expect(exported.evidence[1].authorizationResponse).toBeNull();
  });

  it("exports authorization details as JSON, or as their text when they are not JSON", () => {
    expect(detailsForExport('[{"type":"payment_initiation"}]')).toEqual([{ type: "payment_initiation" }]);
    expect(detailsForExport("not json")).toBe("not json");
  });
});

describe("the consent pages' addresses", () => {
  it("take the id, encoded", () => {
    expect(routes.psd2Consent("c-1")).toBe("/admin/psd2-consents/c-1");
    expect(routes.scopeConsent("a/b?c")).toBe("/admin/consents/a%2Fb%3Fc");
  });
});
