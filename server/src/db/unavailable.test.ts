import pg from "pg";
import { describe, expect, it } from "vitest";
import { Conflict } from "../kernel/domain-errors.js";
import { ServiceUnavailable } from "../kernel/errors.js";
import { freePort } from "../../test/support/free-port.js";
import { isConnectionFailure, unavailableError } from "./unavailable.js";

describe("unavailableError: connection-level database failures become 503", () => {
  it("classifies a real refused connection of node-postgres, and keeps it as the cause", async () => {
    const client = new pg.Client({ connectionString: `postgresql://nobody@127.0.0.1:${await freePort()}/none` });
    const err = await client.connect().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as { code?: string }).code).toBe("ECONNREFUSED");
    const mapped = unavailableError(err);
    expect(mapped).toBeInstanceOf(ServiceUnavailable);
    expect((mapped as ServiceUnavailable).status).toBe(503);
    expect((mapped as ServiceUnavailable).error).toBe("temporarily_unavailable");
    expect((mapped as ServiceUnavailable).headers["Retry-After"]).toMatch(/^[1-9][0-9]*$/);
    expect((mapped as ServiceUnavailable).cause).toBe(err);
    // The driver's text (host, port) never reaches the client.
    expect((mapped as ServiceUnavailable).message).not.toContain("127.0.0.1");
  });

  it.each([
    ["Prisma P1001 with the adapter's error", { code: "P1001", meta: { driverAdapterError: { cause: { kind: "DatabaseNotReachable" } } } }],
    ["Prisma P2010 wrapping DatabaseNotReachable", { code: "P2010", meta: { driverAdapterError: { name: "DriverAdapterError", cause: { kind: "DatabaseNotReachable" } } } }],
    ["Prisma P1017", { code: "P1017" }],
    ["a PostgreSQL admin_shutdown in the adapter's shape", { cause: { kind: "postgres", code: "57P01" } }],
    ["a SQLSTATE of class 08", { code: "08006" }],
    ["node-postgres's pool timeout", new Error("timeout exceeded when trying to connect")],
    ["node-postgres's broken connection", new Error("Connection terminated unexpectedly")],
    ["a wrapped ECONNRESET", new Error("outer", { cause: Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }) })],
  ])("classifies %s", (_name, err) => {
    expect(isConnectionFailure(err)).toBe(true);
    expect(unavailableError(err)).toBeInstanceOf(ServiceUnavailable);
  });

  it.each([
    ["a unique violation", { code: "23505", message: "duplicate key value violates unique constraint" }],
    ["Prisma's record not found", { code: "P2025" }],
    ["a domain error", new Conflict("taken")],
    ["a bug", new TypeError("x is undefined")],
    ["a message that merely mentions a connection", new Error("Connection terminated unexpectedly, said the user")],
    ["not an error", "ECONNREFUSED"],
  ])("leaves %s as it is", (_name, err) => {
    expect(isConnectionFailure(err)).toBe(false);
    expect(unavailableError(err)).toBe(err);
  });

  it("stops at a cause cycle", () => {
    const a: { cause?: unknown } = {};
    a.cause = a;
    expect(isConnectionFailure(a)).toBe(false);
  });
});
