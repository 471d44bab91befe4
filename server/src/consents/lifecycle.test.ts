import { describe, expect, it } from "vitest";
import { settlementOf, statusAt, whyNoPayment } from "./lifecycle.js";
import type { Psd2ConsentRecord } from "../stores/psd2-consents.js";

const answer = (status: number, body: unknown) => ({ sent: true as const, status, body: Buffer.from(typeof body === "string" ? body : JSON.stringify(body)) });

describe("settlementOf: what became of a payment decides its consent", () => {
  it("nothing sent: the first attempt leaves the consent valid, a retry leaves the first attempt's outcome unknown", () => {
    expect(settlementOf({ sent: false }, 1)).toEqual({ status: "valid" });
    expect(settlementOf({ sent: false }, 2)).toEqual({ status: "outcomeUnknown", attempts: 1 });
  });

  it("sent without a status line back: outcome unknown, the attempt counted", () => {
    expect(settlementOf({ sent: true }, 1)).toEqual({ status: "outcomeUnknown", attempts: 1 });
    expect(settlementOf({ sent: true }, 2)).toEqual({ status: "outcomeUnknown", attempts: 2 });
  });

  it("a 2xx is a payment made, with the ISO 20022 status the upstream answered, or none when it named no known one", () => {
    expect(settlementOf(answer(201, { transactionStatus: "ACSC" }), 1)).toEqual({ status: "consumed", transactionStatus: "ACSC", reason: null });
    expect(settlementOf(answer(200, { transactionStatus: "DONE" }), 1)).toEqual({ status: "consumed", transactionStatus: null, reason: null });
    expect(settlementOf(answer(201, "{\"transactionStatus\":\"ACC"), 1)).toEqual({ status: "consumed", transactionStatus: null, reason: null });
  });

  it("a 2xx saying RJCT, and every 3xx, 4xx and 5xx, is a rejection with the upstream's reason", () => {
    const tpp = { transactionStatus: "RJCT", tppMessages: [{ category: "ERROR", code: "FUNDS_NOT_AVAILABLE", text: "insufficient funds" }] };
    expect(settlementOf(answer(201, tpp), 1)).toEqual({ status: "paymentRejected", transactionStatus: "RJCT", reason: "FUNDS_NOT_AVAILABLE: insufficient funds" });
    expect(settlementOf(answer(400, { error: "invalid_request", error_description: "bad IBAN" }), 1)).toMatchObject({ reason: "bad IBAN" });
    expect(settlementOf(answer(503, "<html>down</html>"), 1)).toEqual({ status: "paymentRejected", transactionStatus: "RJCT", reason: "HTTP 503" });
    expect(settlementOf(answer(302, ""), 1)).toMatchObject({ status: "paymentRejected", reason: "HTTP 302" });
  });

  it("keeps a reason only as text a person may be shown, cut to 200 code points", () => {
    expect(settlementOf(answer(422, { error: "evil\u202eRTL" }), 1)).toMatchObject({ reason: "HTTP 422" });
    expect((settlementOf(answer(422, { error: "é".repeat(500) }), 1) as { reason: string }).reason).toBe("é".repeat(200));
  });
});

describe("statusAt and whyNoPayment", () => {
  const consent = (o: Partial<Psd2ConsentRecord>) => ({ status: "valid", validUntil: null, paymentAttempts: 0, paymentRequestId: null, ...o }) as Psd2ConsentRecord;
  const now = new Date("2026-12-02T12:00:00Z");

  it("a valid payment consent past its validUntil is expired", () => {
    expect(statusAt(consent({ validUntil: new Date("2026-12-02T11:59:59Z") }), now)).toBe("expired");
    expect(statusAt(consent({ validUntil: new Date("2026-12-02T12:00:01Z") }), now)).toBe("valid");
  });

  it("tells the TPP why no payment is taken, and when a retry is", () => {
    expect(whyNoPayment(consent({ status: "outcomeUnknown", paymentAttempts: 1, paymentRequestId: "r-1" }), now)).toMatch(/only its retry with the same X-Request-ID/);
    expect(whyNoPayment(consent({ status: "outcomeUnknown", paymentAttempts: 2, paymentRequestId: "r-1" }), now)).toMatch(/retried already/);
    expect(whyNoPayment(consent({ status: "paymentRejected" }), now)).toMatch(/the bank rejected/);
    expect(whyNoPayment(consent({ validUntil: new Date(0) }), now)).toMatch(/time to make the payment has passed/);
    expect(whyNoPayment(undefined, now)).toMatch(/already used, or is revoked or over/);
  });
});
