/**
 * DEMO UPSTREAM, not part of the product: a tiny sample "accounts" API (account list,
 * balances and transactions, fixed data) that the seeded `accounts` API forwards to, the
 * bank's products as open data under `/products` (the seeded `products` API), and a
 * "payments" API under `/payments` that the seeded `payments` API forwards to, so a fresh clone can
 * call a protected API end to end. It runs in the same process on its own local port and
 * echoes the caller identity headers the gateway adds. Under `/echo/` it answers with the
 * whole request it received (so `{base_url}/accounts/echo/` shows what the gateway forwards)
 * and sets cookies, as many upstreams do, which the gateway drops unless the API passes them.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A JSON answer: status code and body. */
type Answer = { status: number; body: unknown };

/** The demo bank's accounts: every demo PSU holds both (demo/accounts.ts). */
export const DEMO_ACCOUNTS = [
  { resourceId: "acc-001", iban: "DE89370400440532013000", currency: "EUR", name: "Main current account", product: "Girokonto" },
  { resourceId: "acc-002", iban: "DE02120300000000202051", currency: "EUR", name: "Savings", product: "Tagesgeld" },
];

const BALANCES: Record<string, { balanceAmount: { currency: string; amount: string }; balanceType: string }[]> = {
  "acc-001": [{ balanceAmount: { currency: "EUR", amount: "1523.42" }, balanceType: "closingBooked" }],
  "acc-002": [{ balanceAmount: { currency: "EUR", amount: "10250.00" }, balanceType: "closingBooked" }],
};

const TRANSACTIONS: Record<string, { bookingDate: string; transactionAmount: { currency: string; amount: string }; remittanceInformationUnstructured: string }[]> = {
  "acc-001": [{ bookingDate: "2026-11-20", transactionAmount: { currency: "EUR", amount: "-42.10" }, remittanceInformationUnstructured: "Groceries" }],
  "acc-002": [{ bookingDate: "2026-11-01", transactionAmount: { currency: "EUR", amount: "250.00" }, remittanceInformationUnstructured: "Monthly saving" }],
};

/** The demo bank's products, the open data under `/products/` (no PSU's data: any client of the product may read it). */
export const DEMO_PRODUCTS = [
  { productId: "girokonto", name: "Girokonto", type: "current account", monthlyFee: { currency: "EUR", amount: "4.90" } },
  { productId: "tagesgeld", name: "Tagesgeld", type: "savings account", interestRate: "2.25" },
];

/** Cookies set by `/echo/`. */
export const DEMO_UPSTREAM_COOKIES = ["demo-upstream=1; Path=/; HttpOnly", "demo-upstream-theme=dark; Path=/"];

/**
 * The IBANs of the accounts a call may see, from the gateway's `X-Authorization-Details`
 * (base64url JSON of the token's approved authorization details); undefined when the call
 * carries none (a token without a PSD2 consent: every account, as before consents).
 */
function consentedIbans(req: IncomingMessage): Set<string> | undefined {
  const header = req.headers["x-authorization-details"];
  if (typeof header !== "string") return undefined;
  const details = JSON.parse(Buffer.from(header, "base64url").toString("utf8")) as { type: string; access?: { accounts?: { iban: string }[] } }[];
  return new Set(details.flatMap((d) => (d.type === "account_information" ? (d.access?.accounts ?? []).map((a) => a.iban) : [])));
}

/**
 * Answers `GET /`, `GET /<id>`, `GET /<id>/balances` and `GET /<id>/transactions` with sample
 * data, `<id>` being an account's resource id or its IBAN; the list shows only the consented
 * accounts when the call carries a consent.
 */
function accounts(path: string, consented: Set<string> | undefined): Answer {
  const parts = path.split("/").filter(Boolean);
  if (parts.length === 0) return { status: 200, body: { accounts: DEMO_ACCOUNTS.filter((a) => !consented || consented.has(a.iban)) } };
  const account = DEMO_ACCOUNTS.find((a) => a.resourceId === parts[0] || a.iban === parts[0]);
  if (!account || parts.length > 2 || (parts.length === 2 && parts[1] !== "balances" && parts[1] !== "transactions")) {
    return { status: 404, body: { error: "not_found" } };
  }
  if (parts.length === 1) return { status: 200, body: account };
  return parts[1] === "balances"
    ? { status: 200, body: { account, balances: BALANCES[account.resourceId] } }
    : { status: 200, body: { account, transactions: { booked: TRANSACTIONS[account.resourceId] } } };
}

/** Payments made through `POST /payments/`, by id (the demo forgets them on restart). */
const payments = new Map<string, unknown>();

/**
 * The demo payments API under `/payments`: `POST /` executes a payment (the body as the TPP
 * sent it, checked by the gateway against the PSU's consent) and answers 201 with its id;
 * `GET /<id>` answers it.
 */
async function paymentsApi(req: IncomingMessage, path: string): Promise<Answer> {
  const id = path.split("/").filter(Boolean)[0];
  if (req.method === "POST" && id === undefined) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const paymentId = `pay-${payments.size + 1}`;
    const payment = { paymentId, transactionStatus: "ACSC", payment: JSON.parse(Buffer.concat(chunks).toString("utf8") || "null") as unknown };
    payments.set(paymentId, payment);
    return { status: 201, body: payment };
  }
  req.resume();
  const payment = id === undefined ? undefined : payments.get(id);
  return payment ? { status: 200, body: payment } : { status: 404, body: { error: "not_found" } };
}

/** The caller identity headers the gateway adds, echoed in every answer. */
function callerOf(req: IncomingMessage) {
  return { clientId: req.headers["x-client-id"], appName: req.headers["x-app-name"], scopes: req.headers["x-scopes"], userId: req.headers["x-user-id"] };
}

/**
 * Starts a JSON server on 127.0.0.1:`port` (0: any free port).
 * @param answer - the answer to a request, or undefined when it answered `res` itself.
 * @returns the server and its base URL.
 */
async function listenJson(
  port: number,
  answer: (req: IncomingMessage, path: string, res: ServerResponse) => Promise<Answer> | undefined,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!;
    const answered = answer(req, path, res);
    if (!answered) return;
    answered.then(
      ({ status, body }) => {
        res.writeHead(status, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ ...(body as object), caller: callerOf(req) }));
      },
      () => res.writeHead(400, { "Content-Type": "application/json" }).end(JSON.stringify({ error: "bad_request" })),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** The running demo upstreams. */
export interface DemoUpstream {
  /** Base URL of the accounts API (and `/echo/`). */
  url: string;
  /** Base URL of the payments API, a listener of its own so that no accounts call reaches it. */
  paymentsUrl: string;
  close(): Promise<void>;
}

/**
 * Starts the demo upstreams on 127.0.0.1.
 * @param port - TCP port of the accounts API, 0 for any free one (the payments API always takes a free one).
 */
export async function startDemoUpstream(port: number): Promise<DemoUpstream> {
  const accountsApi = await listenJson(port, (req, path, res) => {
    if (path === "/echo" || path.startsWith("/echo/")) {
      req.resume();
      res.writeHead(200, { "Content-Type": "application/json", "Set-Cookie": DEMO_UPSTREAM_COOKIES });
      res.end(JSON.stringify({ request: { method: req.method, url: req.url, headers: req.headers }, caller: callerOf(req) }));
      return undefined;
    }
    req.resume();
    if (path === "/products" || path.startsWith("/products/")) return Promise.resolve({ status: 200, body: { products: DEMO_PRODUCTS } });
    return Promise.resolve(accounts(path, consentedIbans(req)));
  });
  const payments = await listenJson(0, paymentsApi);
  const close = (server: Server) =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return { url: accountsApi.url, paymentsUrl: payments.url, close: async () => void (await Promise.all([close(accountsApi.server), close(payments.server)])) };
}
