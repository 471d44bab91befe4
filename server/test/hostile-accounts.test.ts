/**
 * The account-access class of the hostile suite, against a recording upstream
 * (support/echo-upstream.ts) behind the seeded `accounts` API: who reaches account data
 * (every kind of token), by which spelling of a path (case, percent-encoding, `;`
 * parameters, dot segments, double slashes), how often without the PSU (frequencyPerDay,
 * counted across instances) and for how long (one-off consents). Each case asserts the
 * answer and what the bank's side received.
 *
 * SQLite pass: one instance. PostgreSQL pass: two instances over one database and one Redis,
 * the calls of a burst spread over both.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { DEMO } from "../src/demo/seed.js";
import { DEMO_ACCOUNTS } from "../src/demo/upstream.js";
import { startEchoUpstream, type EchoUpstream } from "./support/echo-upstream.js";
import { clientCredentialsToken, pkcePair, tokenRequest, TOKEN_ENDPOINT, userTokens, type Json } from "./support/flow.js";
import { header, send, type RawResponse } from "./support/hostile.js";
import { startTestServer, type TestServer } from "./support/server.js";

const POSTGRESQL = process.env.TEST_DATABASE === "postgresql";
const ADMIN_URL = process.env.TEST_POSTGRES_URL ?? "postgresql://root@127.0.0.1:5432/postgres";
const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const databaseName = `tollgate_accounts_${randomBytes(6).toString("hex")}`;

const [MAIN, SAVINGS] = DEMO_ACCOUNTS.map((a) => a.iban) as [string, string];
const CREDITOR = "FR1420041010050500013M02606";
/** The PSU's address, as a TPP forwards it when the PSU asked (Berlin Group PSU-IP-Address). */
const PSU_PRESENT: [string, string] = ["PSU-IP-Address", "192.0.2.10"];

const instances: TestServer[] = [];
let upstream: EchoUpstream;
const server = () => instances[0]!;
/** The instance serving call `i`. */
const instanceUrl = (i: number) => instances[i % instances.length]!.url;

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  await client.query(sql).finally(() => client.end());
}

beforeAll(async () => {
  upstream = await startEchoUpstream();
  if (!POSTGRESQL) {
    instances.push(await startTestServer());
  } else {
    await admin(`CREATE DATABASE ${databaseName}`);
    const shared = {
      DATABASE_URL: Object.assign(new URL(ADMIN_URL), { pathname: `/${databaseName}` }).toString(),
      REDIS_URL,
      REDIS_KEY_PREFIX: `tollgate-test-${randomBytes(4).toString("hex")}:`,
      SESSION_SECRET: randomBytes(32).toString("hex"),
    };
    // One after the other: the first migrates and seeds.
    for (let i = 0; i < 2; i++) instances.push(await startTestServer(shared));
  }
  await server().prisma.api.update({ where: { name: "accounts" }, data: { upstreamUrl: upstream.url } });
  // Until every instance forwards to the recording upstream (a Prisma write empties the catalog cache; on PostgreSQL Redis tells the others).
  const { tokens } = await userTokens(server().url, { scope: "aisp" });
  for (let i = 0; i < instances.length; i++) {
    await vi.waitFor(async () => expect(body(await get(instanceUrl(i), "/accounts/", tokens.access_token)).url).toBe("/"), { timeout: 5000 });
  }
}, 60_000);

afterAll(async () => {
  for (const s of instances) await s.close();
  if (POSTGRESQL) await admin(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
  await upstream?.close();
});

beforeEach(() => upstream.reset());

/** A GET of `target` (sent byte for byte) through the gateway of `baseUrl`. */
function get(baseUrl: string, target: string, token: string, headers: [string, string][] = []): Promise<RawResponse> {
  return send(baseUrl, { method: "GET", target, headers: [["Authorization", `Bearer ${token}`], ...headers] });
}

/** The error code of a refusal's `WWW-Authenticate` challenge. */
const challenge = (res: RawResponse) => /error="([^"]+)"/.exec(header(res, "www-authenticate") ?? "")?.[1];
const body = (res: RawResponse): Json => JSON.parse(res.text);

/** account_information details: balances and/or transactions of `accounts` (the PSU's choice when absent), valid 30 days. */
function accountAccess(o: { balances?: boolean; transactions?: boolean; frequencyPerDay?: number; recurringIndicator?: boolean; accounts?: string[] } = {}) {
  return {
    type: "account_information",
    access: {
      ...(o.accounts ? { accounts: o.accounts.map((iban) => ({ iban })) } : {}),
      ...(o.balances === false ? {} : { balances: true }),
      ...(o.transactions ? { transactions: true } : {}),
    },
    validUntil: new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10),
    frequencyPerDay: o.frequencyPerDay ?? 4,
    recurringIndicator: o.recurringIndicator ?? true,
  };
}

/** A PSU's token of a consent she approved (SCA, consent page, her choice of `accounts`), and the consent's id. */
async function consentToken(details: unknown[], accounts: string[] = [MAIN]): Promise<{ token: string; consentId: string; approved: Json }> {
  const { tokens } = await userTokens(server().url, {
    client: DEMO.strictApp,
    scope: "",
    approve: [],
    pkce: pkcePair(),
    choice: { accounts },
    extra: { authorization_details: JSON.stringify(details) },
  });
  const row = await server().prisma.accessToken.findFirstOrThrow({ where: { id: (tokens.access_token as string).slice(0, 25) } });
  return { token: tokens.access_token, consentId: row.consentId!, approved: tokens.authorization_details };
}

/** A client credentials token of DEMO.app carrying `details` it asserts itself (RFC 9396 §6.1: no PSU approved them). */
async function selfAssertedToken(details: unknown[], scope?: string): Promise<string> {
  const answer = await tokenRequest(server().url, TOKEN_ENDPOINT, DEMO.app, { grant_type: "client_credentials", scope, authorization_details: JSON.stringify(details) });
  expect(answer.status, answer.text).toBe(200);
  return answer.body.access_token as string;
}

const ACCOUNT_DATA = ["/accounts/", "/accounts", `/accounts/${MAIN}`, `/accounts/${MAIN}/balances`, `/accounts/${MAIN}/transactions`, "/accounts/acc-001/transactions"];

describe("account data needs the PSU: every kind of token", () => {
  it("a client credentials token with the aisp scope reads nothing: 403 insufficient_scope, the upstream never called", async () => {
    const token = await clientCredentialsToken(server().url, DEMO.app, "aisp");
    for (const target of ACCOUNT_DATA) {
      const res = await get(server().url, target, token);
      expect(res.status, target).toBe(403);
      expect(challenge(res), target).toBe("insufficient_scope");
      expect(body(res).error_description).toMatch(/^account data needs the PSU/);
    }
    expect(upstream.received).toEqual([]);
  });

  it("details a TPP asserts itself at the client credentials grant stand in for neither the PSU nor the scope", async () => {
    const details = [accountAccess({ transactions: true, accounts: [MAIN, SAVINGS] })];
    for (const token of [await selfAssertedToken(details, "aisp"), await selfAssertedToken(details, "piisp")]) {
      for (const target of ACCOUNT_DATA) {
        const res = await get(server().url, target, token);
        expect(res.status, target).toBe(403);
        expect(challenge(res), target).toBe("insufficient_scope");
      }
    }
    expect(upstream.received).toEqual([]);
  });

  it("a PSU's token of her SCA reads account data; the upstream gets X-User-Id and no X-Authorization-Details", async () => {
    const { tokens } = await userTokens(server().url, { scope: "aisp" });
    for (const target of ["/accounts/", `/accounts/${MAIN}/transactions`]) expect((await get(server().url, target, tokens.access_token)).status, target).toBe(200);
    expect(upstream.received.map((r) => r.url)).toEqual(["/", `/${MAIN}/transactions`]);
    for (const r of upstream.received) {
      expect(r.headers["x-user-id"]).toBeTruthy();
      expect(r.headers["x-authorization-details"]).toBeUndefined();
    }
  });

  it("a token of a consent the PSU approved reads what she approved; the upstream gets the approved details", async () => {
    const { token, approved } = await consentToken([accountAccess()]);
    expect((await get(server().url, `/accounts/${MAIN}/balances`, token)).status).toBe(200);
    expect(upstream.received).toHaveLength(1);
    const forwarded = upstream.received[0]!.headers["x-authorization-details"] as string;
    expect(JSON.parse(Buffer.from(forwarded, "base64url").toString("utf8"))).toEqual(approved);
  });

  it("self-asserted details never reach an upstream in X-Authorization-Details (where a client credentials token may call)", async () => {
    const token = await selfAssertedToken([{ type: "payment_initiation", instructedAmount: { currency: "EUR", amount: "10.00" }, creditorName: "ACME GmbH", creditorAccount: { iban: CREDITOR } }], "pisp");
    await server().prisma.api.update({ where: { name: "payments" }, data: { upstreamUrl: upstream.url } });
    try {
      await expect.poll(async () => (await get(server().url, "/payments/pay-1", token)).status).toBe(200);
      expect(upstream.received.length).toBeGreaterThan(0);
      for (const r of upstream.received) expect(r.headers["x-authorization-details"]).toBeUndefined();
    } finally {
      await server().prisma.api.update({ where: { name: "payments" }, data: { upstreamUrl: server().demoUpstreamUrl! } });
    }
  });
});

describe("path variants: an allow-list over the canonical path", () => {
  let balancesOnly: string;
  let transactionsOnly: string;
  let psu: string;
  beforeAll(async () => {
    balancesOnly = (await consentToken([accountAccess()])).token;
    transactionsOnly = (await consentToken([accountAccess({ balances: false, transactions: true })])).token;
    psu = (await userTokens(server().url, { scope: "aisp" })).tokens.access_token;
  }, 60_000);

  /** Sends `target` with the PSU present (so nothing counts against the consent's frequency) and returns the answer and what the upstream got. */
  async function call(target: string, token: string): Promise<{ res: RawResponse; received: string[] }> {
    upstream.reset();
    const res = await get(server().url, target, token, [PSU_PRESENT]);
    return { res, received: upstream.received.map((r) => r.url) };
  }

  const transactions = [
    `/accounts/${MAIN}/transactions`,
    `/accounts/${MAIN}/Transactions`,
    `/accounts/${MAIN}/TRANSACTIONS`,
    `/accounts/${MAIN}/%74ransactions`,
    `/accounts/${MAIN}/%54ransactions`,
    `/accounts/${MAIN}/transactions;x`,
    `/accounts/${MAIN}/transactions;jsessionid=0123`,
    `/accounts/${MAIN}/transactions%3bx`,
    `/accounts/${MAIN}/transactions/`,
    `/accounts/${MAIN}/transactions/tx-1`,
    `/accounts/${MAIN}//transactions`,
    `/accounts//${MAIN}//transactions//`,
    `/accounts/${MAIN}/;x/transactions`,
    `/accounts/${MAIN};v=1/transactions`,
    `/accounts/${MAIN.toLowerCase()}/transactions`,
    `/accounts/${encodeURIComponent(MAIN.replace(/(.{4})/g, "$1 ").trim())}/Transactions`,
  ];

  it.each(transactions)("balances only: %s is the account's transactions, refused 403 authorization_details_mismatch, never forwarded", async (target) => {
    const { res, received } = await call(target, balancesOnly);
    expect(res.status).toBe(403);
    expect(challenge(res)).toBe("authorization_details_mismatch");
    expect(received).toEqual([]);
  });

  it.each(transactions)("transactions approved: %s is forwarded as sent", async (target) => {
    const { res, received } = await call(target, transactionsOnly);
    expect(res.status, res.text).toBe(200);
    expect(received).toEqual([target.slice("/accounts".length).replace(/\/{2,}/g, "/")]);
  });

  it.each([
    `/accounts/${MAIN}/balances`,
    `/accounts/${MAIN}/Balances`,
    `/accounts/${MAIN}/%62alances;x`,
    `/accounts//${MAIN}//balances/`,
    `/accounts/${MAIN}`,
    `/accounts/${MAIN}?withBalance=true`,
    "/accounts/",
    "/accounts/?withBalance=true",
  ])("balances only: %s is forwarded", async (target) => {
    const { res, received } = await call(target, balancesOnly);
    expect(res.status, res.text).toBe(200);
    expect(received).toHaveLength(1);
  });

  it.each([
    `/accounts/${MAIN}/balances`,
    `/accounts/${MAIN}/BALANCES;x`,
    `/accounts/${MAIN}?withBalance=true`,
    `/accounts/${MAIN}/transactions?withBalance=true`,
    `/accounts/${MAIN}/transactions?WithBalance`,
    `/accounts/${MAIN}/transactions?with%42alance=1`,
    "/accounts/?withBalance=true",
  ])("transactions only: %s reads balances, refused 403", async (target) => {
    const { res, received } = await call(target, transactionsOnly);
    expect(res.status).toBe(403);
    expect(challenge(res)).toBe("authorization_details_mismatch");
    expect(received).toEqual([]);
  });

  it.each([`/accounts/${SAVINGS}/balances`, `/accounts/${SAVINGS}`, `/accounts/%44${SAVINGS.slice(1)}/balances`, "/accounts/acc-001/balances", `/accounts/${MAIN}x/balances`])(
    "balances only: %s is another account, refused 403",
    async (target) => {
      const { res, received } = await call(target, balancesOnly);
      expect(res.status).toBe(403);
      expect(challenge(res)).toBe("authorization_details_mismatch");
      expect(received).toEqual([]);
    },
  );

  it.each([
    `/accounts/${MAIN}/transactions.json`,
    `/accounts/${MAIN}/balances.json`,
    `/accounts/${MAIN}/tran%C5%BFactions`,
    `/accounts/${MAIN}/transactions%00`,
    `/accounts/${MAIN}/transactions%20`,
    `/accounts/${MAIN}/balances/x`,
    `/accounts/${MAIN}/transactions/tx-1/x`,
    `/accounts/${MAIN}/card-accounts`,
  ])("%s is off the allow-list: 404 for every token, never forwarded", async (target) => {
    for (const token of [balancesOnly, transactionsOnly, psu]) {
      const { res, received } = await call(target, token);
      expect(res.status).toBe(404);
      expect(body(res).error).toBe("not_found");
      expect(received).toEqual([]);
    }
  });

  it.each([
    `/accounts/${MAIN}/balances/../transactions`,
    `/accounts/${MAIN}/balances/%2e%2e/transactions`,
    `/accounts/${MAIN}/balances/..;x/transactions`,
    `/accounts/${MAIN}/./transactions`,
    `/accounts/x/../${MAIN}/transactions`,
    `/accounts/${MAIN}%2ftransactions`,
  ])("%s: dot segments and encoded slashes are 400, never forwarded", async (target) => {
    for (const token of [balancesOnly, psu]) {
      const { res, received } = await call(target, token);
      expect(res.status).toBe(400);
      expect(body(res).error).toBe("invalid_request");
      expect(received).toEqual([]);
    }
  });
});

describe("frequencyPerDay: unattended calls counted per consent and UTC day, across instances", () => {
  it("a once-a-day consent: one unattended call, then 429 access_exceeded until the next UTC day; calls with the PSU go on", async () => {
    const { token } = await consentToken([accountAccess({ frequencyPerDay: 1 })]);
    expect((await get(instanceUrl(0), `/accounts/${MAIN}/balances`, token)).status).toBe(200);
    for (let i = 1; i <= 11; i++) {
      const res = await get(instanceUrl(i), `/accounts/${MAIN}/balances`, token);
      expect(res.status).toBe(429);
      expect(body(res).error).toBe("access_exceeded");
      const retryAfter = Number(header(res, "retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(86_400);
      expect(new Date(Date.now() + retryAfter * 1000).toISOString().slice(0, 10)).not.toBe(new Date().toISOString().slice(0, 10));
    }
    for (let i = 0; i < 3; i++) expect((await get(instanceUrl(i), `/accounts/${MAIN}/balances`, token, [PSU_PRESENT])).status).toBe(200);
    expect(upstream.received).toHaveLength(4);
  });

  it("a burst of parallel unattended calls over every instance gets exactly frequencyPerDay answers", async () => {
    const { token } = await consentToken([accountAccess({ frequencyPerDay: 4 })]);
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => get(instanceUrl(i), i % 2 ? "/accounts/" : `/accounts/${MAIN}/balances`, token)));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(4);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(12);
    expect(upstream.received).toHaveLength(4);
  });

  it("counts per consent: another consent of the same PSU and TPP has its own count; a new day starts again", async () => {
    const first = await consentToken([accountAccess({ frequencyPerDay: 2 })]);
    const second = await consentToken([accountAccess({ frequencyPerDay: 2 })]);
    for (const { token } of [first, second]) {
      for (let i = 0; i < 2; i++) expect((await get(instanceUrl(i), `/accounts/${MAIN}`, token)).status).toBe(200);
      expect((await get(instanceUrl(0), `/accounts/${MAIN}`, token)).status).toBe(429);
    }
    // As if the two calls had been yesterday (UTC).
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    await server().prisma.consentAccess.update({ where: { consentId: first.consentId }, data: { day: yesterday } });
    for (let i = 0; i < 2; i++) expect((await get(instanceUrl(i), `/accounts/${MAIN}`, first.token)).status).toBe(200);
    expect((await get(instanceUrl(0), `/accounts/${MAIN}`, first.token)).status).toBe(429);
  });

  it("calls refused for another reason do not count", async () => {
    const { token } = await consentToken([accountAccess({ frequencyPerDay: 1 })]);
    for (const target of [`/accounts/${MAIN}/transactions`, `/accounts/${SAVINGS}/balances`, `/accounts/${MAIN}/x`]) expect((await get(instanceUrl(0), target, token)).status).toBeGreaterThanOrEqual(403);
    expect((await get(instanceUrl(1), `/accounts/${MAIN}/balances`, token)).status).toBe(200);
  });

  it.each(["not-an-ip", "192.0.2.10, 192.0.2.11", "", "999.1.1.1"])("PSU-IP-Address %j is not the PSU's address: 400 invalid_request, nothing counted", async (value) => {
    const { token } = await consentToken([accountAccess({ frequencyPerDay: 1 })]);
    const res = await get(server().url, `/accounts/${MAIN}/balances`, token, [["PSU-IP-Address", value]]);
    expect(res.status).toBe(400);
    expect(body(res).error).toBe("invalid_request");
    expect(upstream.received).toEqual([]);
    expect((await get(server().url, `/accounts/${MAIN}/balances`, token)).status).toBe(200);
  });

  it("an IPv6 PSU-IP-Address marks the PSU present too", async () => {
    const { token } = await consentToken([accountAccess({ frequencyPerDay: 1 })]);
    for (let i = 0; i < 3; i++) expect((await get(instanceUrl(i), `/accounts/${MAIN}/balances`, token, [["PSU-IP-Address", "2001:db8::1"]])).status).toBe(200);
  });
});

describe("one-off consents (recurringIndicator false)", () => {
  it("serve the UTC day of their first call, then 403 consent_invalid, the PSU present or not", async () => {
    const { token, consentId } = await consentToken([accountAccess({ recurringIndicator: false, frequencyPerDay: 1 })]);
    expect((await get(instanceUrl(0), `/accounts/${MAIN}/balances`, token)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await get(instanceUrl(i), "/accounts/", token, [PSU_PRESENT])).status).toBe(200);
    expect((await get(instanceUrl(1), "/accounts/", token)).status).toBe(429);
    // As if the first call had been yesterday (UTC).
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    await server().prisma.consentAccess.update({ where: { consentId }, data: { firstDay: yesterday, day: yesterday } });
    upstream.reset();
    for (const headers of [[PSU_PRESENT], []] as [string, string][][]) {
      const res = await get(instanceUrl(1), `/accounts/${MAIN}/balances`, token, headers);
      expect(res.status).toBe(403);
      expect(challenge(res)).toBe("consent_invalid");
    }
    expect(upstream.received).toEqual([]);
  });

  it("a recurring consent is not used up by a first call on an earlier day", async () => {
    const { token, consentId } = await consentToken([accountAccess({ frequencyPerDay: 1 })]);
    expect((await get(server().url, `/accounts/${MAIN}/balances`, token)).status).toBe(200);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    await server().prisma.consentAccess.update({ where: { consentId }, data: { firstDay: yesterday, day: yesterday } });
    expect((await get(server().url, `/accounts/${MAIN}/balances`, token)).status).toBe(200);
  });
});
