import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AuditEvent } from "../api/admin";
import {
  consentSummary,
  requestFilter,
  requestsOf,
  auditVariables,
  csvField,
  EMPTY_FILTER,
  eventTimeFormat,
  exportFileName,
  fetchAll,
  filterQuery,
  fromLocalInput,
  otherDetails,
  parseInstant,
  rangeError,
  readDetails,
  readFilter,
  refusalOf,
  toCsv,
  toJson,
  toLocalInput,
} from "./audit";
import { routes } from "./routes";

const REFUSAL: AuditEvent = {
  id: "e1",
  at: "2026-11-24T23:41:07.123Z",
  type: "client.authentication_failed",
  actor: "demo-budgeting-key",
  subject: "",
  details: JSON.stringify({
    reason: "invalid_client",
    description: "client authentication failed",
    endpoint: "/oauth2/v1/token",
    request_id: "req-1",
    interaction_id: "int-1",
    ip: "127.0.0.1",
  }),
  count: 12,
};

describe("the filter in the URL", () => {
  it("reads every criterion, trimmed, and the time range as UTC instants", () => {
    const params = new URLSearchParams({
      type: "client.authentication_failed",
      clientId: " demo-budgeting-key ",
      username: "alice",
      api: "accounts",
      reason: " invalid_token ",
      outcome: "failure",
      from: "2026-11-24T23:00:00.000Z",
      to: "2026-11-25T01:00:00+01:00",
      requestId: " req-1 ",
      interactionId: "0b5c6a3e-1111-4222-8333-944445555666",
    });
    expect(readFilter(params)).toEqual({
      filter: {
        type: "client.authentication_failed",
        clientId: "demo-budgeting-key",
        username: "alice",
        api: "accounts",
        reason: "invalid_token",
        outcome: "failure",
        from: "2026-11-24T23:00:00.000Z",
        to: "2026-11-25T00:00:00.000Z",
        requestId: "req-1",
        interactionId: "0b5c6a3e-1111-4222-8333-944445555666",
      },
      ignored: [],
    });
  });

  it("leaves out, and names, an unknown outcome and a time that is not one", () => {
    const { filter, ignored } = readFilter(new URLSearchParams({ outcome: "maybe", from: "yesterday", to: "2026-13-01T00:00Z", clientId: "k" }));
    expect(filter).toEqual({ ...EMPTY_FILTER, clientId: "k" });
    expect(ignored).toEqual(["outcome", "from", "to"]);
  });

  it("is empty without parameters, and empty values are no criteria", () => {
    expect(readFilter(new URLSearchParams("type=&clientId=%20"))).toEqual({ filter: EMPTY_FILTER, ignored: [] });
  });

  it("writes only the criteria given, in a fixed order, and reads back the same", () => {
    const filter = { ...EMPTY_FILTER, to: "2026-11-25T00:00:00.000Z", reason: "invalid_client", clientId: "demo-budgeting-key", outcome: "success" as const };
    const query = filterQuery(filter);
    expect(Object.keys(query)).toEqual(["clientId", "reason", "outcome", "to"]);
    expect(readFilter(new URLSearchParams(query)).filter).toEqual(filter);
  });

  it("gives the query only the criteria given", () => {
    expect(auditVariables(EMPTY_FILTER)).toEqual({});
    expect(auditVariables({ ...EMPTY_FILTER, type: "token.issued", outcome: "failure" })).toEqual({ type: "token.issued", outcome: "failure" });
    expect(auditVariables({ ...EMPTY_FILTER, type: "gateway.refused", reason: "invalid_token" })).toEqual({ type: "gateway.refused", reason: "invalid_token" });
  });

  it("links to the audit page already filtered", () => {
    expect(routes.audit()).toBe("/admin/audit");
    expect(routes.audit({ clientId: "demo-budgeting-key" })).toBe("/admin/audit?clientId=demo-budgeting-key");
    expect(routes.audit({ reason: "invalid_token", clientId: "demo-budgeting-key", type: "gateway.refused" })).toBe(
      "/admin/audit?type=gateway.refused&clientId=demo-budgeting-key&reason=invalid_token",
    );
    expect(routes.audit({ type: "client.authentication_failed", from: "2026-11-24T23:00:00.000Z", to: "2026-11-25T00:00:00.000Z" })).toBe(
      "/admin/audit?type=client.authentication_failed&from=2026-11-24T23%3A00%3A00.000Z&to=2026-11-25T00%3A00%3A00.000Z",
    );
  });
});

describe("the time range", () => {
  it("must start before it ends", () => {
    expect(rangeError({ from: "2026-11-24T23:00:00.000Z", to: "2026-11-25T00:00:00.000Z" })).toBe("");
    expect(rangeError({ from: "2026-11-25T00:00:00.000Z", to: "2026-11-25T00:00:00.000Z" })).toMatch(/before/);
    expect(rangeError({ from: "2026-11-25T01:00:00.000Z", to: "2026-11-25T00:00:00.000Z" })).toMatch(/before/);
    expect(rangeError({ from: "", to: "2026-11-25T00:00:00.000Z" })).toBe("");
  });

  it("reads a datetime-local value in the browser's time zone", () => {
    expect(fromLocalInput("2026-11-24T10:05")).toBe(new Date(2026, 10, 24, 10, 5).toISOString());
    expect(fromLocalInput("2026-11-24T10:05:30")).toBe(new Date(2026, 10, 24, 10, 5, 30).toISOString());
    expect(fromLocalInput("2026-11-24T10:05:30.5")).toBe(new Date(2026, 10, 24, 10, 5, 30, 500).toISOString());
    expect(fromLocalInput("2026-11-24")).toBe(new Date(2026, 10, 24).toISOString());
    expect(fromLocalInput("2028-02-29T00:00")).toBe(new Date(2028, 1, 29).toISOString());
  });

  it("refuses what is not a date and time of the calendar", () => {
    for (const value of ["", "2026-11-24T24:00", "2026-11-31T10:00", "2027-02-29T10:00", "2026-11-24T10:60", "24/11/2026 10:00", "2026-11-24T10:05Z"]) {
      expect(fromLocalInput(value), value).toBeNull();
    }
  });

  it("shows an instant in a datetime-local input, and reads it back the same", () => {
    const instant = new Date(2026, 10, 24, 9, 3).toISOString();
    expect(toLocalInput(instant)).toBe("2026-11-24T09:03");
    expect(fromLocalInput(toLocalInput(instant))).toBe(instant);
    const withSeconds = new Date(2026, 0, 2, 23, 59, 7).toISOString();
    expect(toLocalInput(withSeconds)).toBe("2026-01-02T23:59:07");
    expect(fromLocalInput(toLocalInput(withSeconds))).toBe(withSeconds);
    expect(toLocalInput("")).toBe("");
    expect(toLocalInput("nonsense")).toBe("");
  });

  it("takes an instant with its zone as it is, one without in the browser's zone", () => {
    expect(parseInstant("2026-11-24T23:00Z")).toBe("2026-11-24T23:00:00.000Z");
    expect(parseInstant("2026-11-25T00:30:00.250+01:00")).toBe("2026-11-24T23:30:00.250Z");
    expect(parseInstant("2026-11-24T23:00")).toBe(new Date(2026, 10, 24, 23).toISOString());
    expect(parseInstant("1732489200")).toBeNull();
  });

  describe("in a time zone other than UTC", () => {
    const saved = process.env.TZ;
    beforeEach(() => {
      process.env.TZ = "Europe/Berlin";
    });
    afterEach(() => {
      if (saved === undefined) delete process.env.TZ;
      else process.env.TZ = saved;
    });

    it("reads and shows the local time of that zone, daylight saving time included", () => {
      // Node applies a TZ set at run time; where it does not, this case says nothing.
      if (new Date(Date.UTC(2026, 0, 1)).getTimezoneOffset() !== -60) return;
      expect(fromLocalInput("2026-11-24T10:05")).toBe("2026-11-24T09:05:00.000Z");
      expect(fromLocalInput("2026-07-01T10:05")).toBe("2026-07-01T08:05:00.000Z");
      expect(toLocalInput("2026-11-24T23:00:00.000Z")).toBe("2026-11-25T00:00");
      expect(parseInstant("2026-11-24T23:00:00.000Z")).toBe("2026-11-24T23:00:00.000Z");
    });
  });

  it("names the time zone of an event's time, with its seconds", () => {
    expect(eventTimeFormat("en-GB", "UTC").format(new Date(REFUSAL.at))).toBe("24 Nov 2026, 23:41:07 UTC");
  });
});

describe("an event's details", () => {
  it("gives a refusal's reason, description, request id and interaction id, and the members other than the first three", () => {
    const details = readDetails(REFUSAL.details);
    expect(refusalOf(details)).toEqual({ reason: "invalid_client", description: "client authentication failed", requestId: "req-1", interactionId: "int-1" });
    expect(otherDetails(details)).toEqual(["endpoint: /oauth2/v1/token", "interaction_id: int-1", "ip: 127.0.0.1"]);
  });

  it("shows other values as JSON, cut when long", () => {
    const details = readDetails(JSON.stringify({ args: { appId: "a1", status: "revoked" }, jwks: "x".repeat(300), empty: "" }));
    expect(refusalOf(details)).toEqual({});
    const [args, jwks, ...rest] = otherDetails(details);
    expect(args).toBe('args: {"appId":"a1","status":"revoked"}');
    expect(jwks).toHaveLength("jwks: ".length + 200);
    expect(jwks!.endsWith("…")).toBe(true);
    expect(rest).toEqual([]);
  });

  it("are empty when the text is not a JSON object", () => {
    expect(readDetails("not json")).toEqual({});
    expect(readDetails("[1,2]")).toEqual({});
    expect(readDetails("null")).toEqual({});
    expect(refusalOf(readDetails(JSON.stringify({ reason: 42 })))).toEqual({});
  });
});

describe("CSV", () => {
  it.each<[string | number, string]>([
    // quoting
    ["plain", "plain"],
    ['say "hi"', '"say ""hi"""'],
    ["a,b", '"a,b"'],
    ["line\nbreak", '"line\nbreak"'],
    ["cr\r", '"cr\r"'],
    [12, "12"],
    // formulas
    ["=HYPERLINK(\"http://evil\")", "\"'=HYPERLINK(\"\"http://evil\"\")\""],
    ["+1", "'+1"],
    ["-2+3", "'-2+3"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["\tcmd", "'\tcmd"],
    ["=1,2", "\"'=1,2\""],
    ["a=b", "a=b"],
  ])("writes %j as %j: quoted when it holds a quote, comma or line break (its quotes doubled), a spreadsheet formula neutralized with a leading '", (field, csv) => {
    expect(csvField(field)).toBe(csv);
  });

  it("has a header line, then one line per event, CRLF line ends", () => {
    const admin: AuditEvent = {
      id: "e2",
      at: "2026-11-24T22:00:00.000Z",
      type: "admin.createApp",
      actor: "admin:admin",
      subject: "=cmd",
      details: JSON.stringify({ args: { input: { name: "A, \"B\"" } } }),
      count: 1,
    };
    const csv = toCsv([REFUSAL, admin]);
    const lines = csv.split("\r\n");
    expect(lines[0]).toBe("at,type,actor,subject,count,reason,description,request_id,interaction_id,details");
    expect(lines[1]).toBe(
      `2026-11-24T23:41:07.123Z,client.authentication_failed,demo-budgeting-key,,12,invalid_client,client authentication failed,req-1,int-1,"${REFUSAL.details.replace(/"/g, '""')}"`,
    );
    expect(lines[2]).toBe(`2026-11-24T22:00:00.000Z,admin.createApp,admin:admin,'=cmd,1,,,,,"{""args"":{""input"":{""name"":""A, \\""B\\""""}}}"`);
    expect(lines[3]).toBe("");
    expect(lines).toHaveLength(4);
    expect(toCsv([])).toBe("at,type,actor,subject,count,reason,description,request_id,interaction_id,details\r\n");
  });
});

describe("JSON export", () => {
  it("holds the filter, whether it was capped, and the events with their details as objects", () => {
    const exported = JSON.parse(toJson([REFUSAL], { filter: { ...EMPTY_FILTER, clientId: "demo-budgeting-key" }, capped: false, exportedAt: new Date("2026-11-25T00:00:00Z") }));
    expect(exported).toEqual({
      exportedAt: "2026-11-25T00:00:00.000Z",
      filter: { clientId: "demo-budgeting-key" },
      capped: false,
      limit: 10_000,
      count: 1,
      events: [{ ...REFUSAL, details: JSON.parse(REFUSAL.details) }],
    });
  });

  it("names the files by the time of the export", () => {
    const now = new Date("2026-11-24T23:41:07.500Z");
    expect(exportFileName("csv", now)).toBe("tollgate-audit-2026-11-24T23-41-07Z.csv");
    expect(exportFileName("json", now)).toBe("tollgate-audit-2026-11-24T23-41-07Z.json");
  });
});

describe("fetching every page for an export", () => {
  /** A list of `total` numbers served in pages, recording each call. */
  function pages(total: number) {
    const calls: Array<{ after: string | null; first: number }> = [];
    const fetchPage = async (after: string | null, first: number) => {
      calls.push({ after, first });
      const start = after === null ? 0 : Number(after);
      const nodes = Array.from({ length: Math.max(0, Math.min(first, total - start)) }, (_, i) => start + i);
      const end = start + nodes.length;
      return { nodes, pageInfo: { endCursor: nodes.length ? String(end) : null, hasNextPage: end < total } };
    };
    return { calls, fetchPage };
  }

  it("follows the cursors to the last page", async () => {
    const { calls, fetchPage } = pages(450);
    const progress: number[] = [];
    const { rows, capped } = await fetchAll(fetchPage, { pageSize: 200, onProgress: (n) => progress.push(n) });
    expect(rows).toEqual(Array.from({ length: 450 }, (_, i) => i));
    expect(capped).toBe(false);
    expect(calls).toEqual([
      { after: null, first: 200 },
      { after: "200", first: 200 },
      { after: "400", first: 200 },
    ]);
    expect(progress).toEqual([200, 400, 450]);
  });

  it("stops at the limit and says whether there were more", async () => {
    const more = pages(1000);
    expect(await fetchAll(more.fetchPage, { pageSize: 200, limit: 500 })).toEqual({ rows: Array.from({ length: 500 }, (_, i) => i), capped: true });
    expect(more.calls.map((c) => c.first)).toEqual([200, 200, 100]);

    const exactly = pages(500);
    expect((await fetchAll(exactly.fetchPage, { pageSize: 200, limit: 500 })).capped).toBe(false);
  });

  it("stops on an empty list, and on a page that claims more without a cursor", async () => {
    expect(await fetchAll(pages(0).fetchPage, { pageSize: 200 })).toEqual({ rows: [], capped: false });
    const broken = async () => ({ nodes: [1], pageInfo: { endCursor: null, hasNextPage: true } });
    expect(await fetchAll(broken, { pageSize: 200 })).toEqual({ rows: [1], capped: false });
  });
});

describe("people and requests in the audit log", () => {
  const consent = (kind: "account_information" | "payment_initiation", details: unknown) => ({ kind, authorizationDetails: JSON.stringify(details) });
  const access = (accounts: unknown) => ({ type: "account_information", access: accounts, validUntil: "2026-12-31", frequencyPerDay: 4, recurringIndicator: true });
  const payment = { type: "payment_initiation", instructedAmount: { amount: "12.5", currency: "EUR" }, creditorName: "Anna Schmidt", creditorAccount: { iban: "DE89370400440532013000" } };

  it("sums a PSD2 consent up in a few words", () => {
    expect(consentSummary(consent("account_information", [access({ accounts: [{ iban: "DE1" }, { iban: "DE2" }] })]), "en-GB")).toBe("account access, 2 accounts");
    expect(consentSummary(consent("account_information", [access({ allAccounts: true })]), "en-GB")).toBe("account access, all accounts");
    expect(consentSummary(consent("payment_initiation", [payment]), "en-GB")).toBe("payment €12.50 to Anna Schmidt");
    expect(consentSummary(consent("payment_initiation", [payment, payment]), "en-GB")).toBe("2 payments");
    expect(consentSummary({ kind: "payment_initiation", authorizationDetails: "not json" }, "en-GB")).toBe("payment");
  });

  it("lists a grouped refusal's requests in pairs, and finds a request by the id it was searched by", () => {
    const details = { request_id: "r1", interaction_id: "i1", request_ids: ["r1", "r2"], interaction_ids: ["i1", "i2"] };
    expect(requestsOf(details)).toEqual([
      { requestId: "r1", interactionId: "i1" },
      { requestId: "r2", interactionId: "i2" },
    ]);
    expect(requestsOf({ request_id: "r1" })).toEqual([]);
    expect(requestFilter(details, "i2")).toEqual({ interactionId: "i2" });
    expect(requestFilter(details, "r2")).toEqual({ requestId: "r2" });
  });
});
