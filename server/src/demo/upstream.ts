/**
 * DEMO UPSTREAM, not part of the product: a tiny sample "accounts" API (account list and
 * balances, fixed data) that the seeded `accounts` API forwards to, so a fresh clone can
 * call a protected API end to end. It runs in the same process on its own local port and
 * echoes the caller identity headers the gateway adds. Under `/echo/` it answers with the
 * whole request it received (so `{base_url}/accounts/echo/` shows what the gateway forwards)
 * and sets cookies, as many upstreams do, which the gateway drops unless the API passes them.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

const ACCOUNTS = [
  { resourceId: "acc-001", iban: "DE89370400440532013000", currency: "EUR", name: "Main current account", product: "Girokonto" },
  { resourceId: "acc-002", iban: "DE02120300000000202051", currency: "EUR", name: "Savings", product: "Tagesgeld" },
];

const BALANCES: Record<string, { balanceAmount: { currency: string; amount: string }; balanceType: string }[]> = {
  "acc-001": [{ balanceAmount: { currency: "EUR", amount: "1523.42" }, balanceType: "closingBooked" }],
  "acc-002": [{ balanceAmount: { currency: "EUR", amount: "10250.00" }, balanceType: "closingBooked" }],
};

/** Cookies set by `/echo/`. */
export const DEMO_UPSTREAM_COOKIES = ["demo-upstream=1; Path=/; HttpOnly", "demo-upstream-theme=dark; Path=/"];

/** Answers `GET /`, `GET /<id>` and `GET /<id>/balances` with sample data. */
function route(path: string): { status: number; body: unknown } {
  const parts = path.split("/").filter(Boolean);
  if (parts.length === 0) return { status: 200, body: { accounts: ACCOUNTS } };
  const account = ACCOUNTS.find((a) => a.resourceId === parts[0]);
  if (!account || parts.length > 2 || (parts.length === 2 && parts[1] !== "balances")) {
    return { status: 404, body: { error: "not_found" } };
  }
  return { status: 200, body: parts.length === 1 ? account : { account, balances: BALANCES[account.resourceId] } };
}

/**
 * Starts the demo upstream on 127.0.0.1.
 * @param port - TCP port, 0 for any free one.
 * @returns the server and its base URL (`http://127.0.0.1:<port>`).
 */
export async function startDemoUpstream(port: number): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    const caller = { clientId: req.headers["x-client-id"], appName: req.headers["x-app-name"], scopes: req.headers["x-scopes"], userId: req.headers["x-user-id"] };
    if (path === "/echo" || path.startsWith("/echo/")) {
      req.resume();
      res.writeHead(200, { "Content-Type": "application/json", "Set-Cookie": DEMO_UPSTREAM_COOKIES });
      res.end(JSON.stringify({ request: { method: req.method, url: req.url, headers: req.headers }, caller }));
      return;
    }
    const { status, body } = route(path);
    res.writeHead(status, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ ...(body as object), caller }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}
