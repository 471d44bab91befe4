/**
 * The resources of an API whose `consentCheck` is `accounts`, as an allow-list over the
 * canonical path: what an upstream would serve, whichever way the caller spelled it.
 * Servlet containers, Spring and ASP.NET serve `/<iban>/Transactions`, `/<iban>/%74ransactions`,
 * `/<iban>/transactions;x` and `/<iban>/transactions/` all as `/<iban>/transactions`, so a
 * rule that compares the path as sent can be walked around; one that names the canonical
 * form of every resource it lets through cannot. Pure functions, no HTTP.
 */

/** What an account API call reads (Berlin Group NextGenPSD2 AIS endpoints, RTS Art. 36(1)). */
export type AccountResource =
  /** `GET /`: the account list (the upstream filters it by the forwarded consent). */
  | { kind: "list"; withBalance: boolean }
  /**
   * Under one account: its details (`/<account>`), `balances`, or `transactions` (also one
   * transaction, `/<account>/transactions/<transactionId>`).
   * @property account - the account segment, percent-decoded and without `;` parameters (an IBAN, spaces and case as sent).
   * @property withBalance - the query asks for the balances too (Berlin Group `withBalance`).
   */
  | { kind: "account"; account: string; data: "details" | "balances" | "transactions"; withBalance: boolean };

/** A segment as an upstream routes it: percent-decoded, its `;` parameters removed; undefined when undecodable. */
function canonicalSegment(segment: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return undefined;
  }
  const semicolon = decoded.indexOf(";");
  return semicolon < 0 ? decoded : decoded.slice(0, semicolon);
}

/** Berlin Group's `withBalance` query parameter (any spelling and letter case: some upstreams fold parameter names). */
function asksWithBalance(query: string): boolean {
  return query.split("&").some((pair) => canonicalSegment(pair.split("=")[0]!.replaceAll("+", " "))?.trim().toLowerCase() === "withbalance");
}

/**
 * The resource a call to an account API reads, from its canonical path: segments
 * percent-decoded, `;` parameters removed, empty segments dropped (runs of slashes, a
 * trailing slash, a segment of parameters alone), the data segments compared in lower case.
 * Dot segments never get here (gateway/router.ts `splitPath` refuses them).
 * @param rest - the path forwarded to the upstream (from "/", with the query).
 * @returns the resource, or undefined for anything else (not on the allow-list: refuse it).
 */
export function accountResource(rest: string): AccountResource | undefined {
  const query = rest.indexOf("?");
  const path = query < 0 ? rest : rest.slice(0, query);
  const withBalance = query >= 0 && asksWithBalance(rest.slice(query + 1));
  const segments: string[] = [];
  for (const raw of path.split("/")) {
    const segment = canonicalSegment(raw);
    if (segment === undefined) return undefined;
    if (segment !== "") segments.push(segment);
  }
  const [account, data, transactionId, ...more] = segments;
  if (account === undefined) return { kind: "list", withBalance };
  if (more.length > 0) return undefined;
  const kind = data?.toLowerCase();
  if (kind === undefined) return { kind: "account", account, data: "details", withBalance };
  if (kind === "balances" && transactionId === undefined) return { kind: "account", account, data: "balances", withBalance };
  if (kind === "transactions") return { kind: "account", account, data: "transactions", withBalance };
  return undefined;
}
