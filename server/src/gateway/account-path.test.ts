import { describe, expect, it } from "vitest";
import { accountResource } from "./account-path.js";

const IBAN = "DE89370400440532013000";

describe("accountResource: the allow-list over the canonical path of an account API", () => {
  it("names the account list, an account, its balances and its transactions (one transaction too)", () => {
    expect(accountResource("/")).toEqual({ kind: "list", withBalance: false });
    expect(accountResource("/?withBalance=true")).toEqual({ kind: "list", withBalance: true });
    expect(accountResource(`/${IBAN}`)).toEqual({ kind: "account", account: IBAN, data: "details", withBalance: false });
    expect(accountResource(`/${IBAN}/balances`)).toEqual({ kind: "account", account: IBAN, data: "balances", withBalance: false });
    expect(accountResource(`/${IBAN}/transactions?bookingStatus=booked`)).toEqual({ kind: "account", account: IBAN, data: "transactions", withBalance: false });
    expect(accountResource(`/${IBAN}/transactions/tx-1`)).toMatchObject({ data: "transactions" });
  });

  it.each([
    `/${IBAN}/Transactions`,
    `/${IBAN}/TRANSACTIONS`,
    `/${IBAN}/%74ransactions`,
    `/${IBAN}/%54RANSACTIONS`,
    `/${IBAN}/transactions;x`,
    `/${IBAN}/transactions;jsessionid=1`,
    `/${IBAN}/transactions%3bx`,
    `/${IBAN}/transactions/`,
    `/${IBAN}/;x/transactions`,
    `/${IBAN};v=1/transactions`,
    `/${IBAN}//transactions`,
  ])("reads %s as the account's transactions, as Servlet, Spring and ASP.NET upstreams serve it", (rest) => {
    expect(accountResource(rest)).toMatchObject({ kind: "account", account: IBAN, data: "transactions" });
  });

  it.each([
    `/${IBAN}/details`,
    `/${IBAN}/transactions.json`,
    `/${IBAN}/balances.json`,
    `/${IBAN}/balances/x`,
    `/${IBAN}/transactions/tx-1/more`,
    `/${IBAN}/tran%C5%BFactions`,
    `/${IBAN}/transactions%00`,
    `/${IBAN}/transactions%20`,
    `/${IBAN}/card-accounts`,
    `/${IBAN}/%zz`,
  ])("refuses %s: not on the allow-list", (rest) => {
    expect(accountResource(rest)).toBeUndefined();
  });

  it.each(["withBalance", "WITHBALANCE", "withbalance", "with%42alance", "withBalance;x", "withBalance%20"])("sees the query parameter %s as withBalance", (name) => {
    expect(accountResource(`/${IBAN}/transactions?a=1&${name}=true`)).toMatchObject({ withBalance: true });
    expect(accountResource(`/?${name}`)).toMatchObject({ withBalance: true });
  });

  it("runs in linear time on a long path", () => {
    const started = performance.now();
    expect(accountResource("/" + "a;".repeat(100_000) + "/" + "x/".repeat(100_000))).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
