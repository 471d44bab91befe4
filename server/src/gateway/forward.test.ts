import { describe, expect, it } from "vitest";
import { endToEndHeaders } from "./forward.js";

describe("endToEndHeaders (RFC 9110 §7.6.1)", () => {
  it("drops the connection's own fields and keeps the message's", () => {
    const headers = {
      connection: "keep-alive",
      "keep-alive": "timeout=5",
      "transfer-encoding": "chunked",
      te: "trailers",
      trailer: "x-sum",
      upgrade: "websocket",
      "proxy-authorization": "Basic eDp5",
      "proxy-connection": "keep-alive",
      host: "gateway.example",
      expect: "100-continue",
      accept: "application/json",
      "set-cookie": ["a=1", "b=2"],
    };
    expect(endToEndHeaders(headers)).toEqual({ accept: "application/json", "set-cookie": ["a=1", "b=2"] });
  });

  it("drops every field the Connection field names, whatever its case and spacing", () => {
    const headers = { connection: "Keep-Alive ,X-Internal,  x-trace", "x-internal": "1", "x-trace": "2", "x-other": "3" };
    expect(endToEndHeaders(headers)).toEqual({ "x-other": "3" });
  });

  it("also drops the fields the caller's drop function names", () => {
    const headers = { authorization: "Bearer x", accept: "*/*", cookie: "a=1" };
    expect(endToEndHeaders(headers, (name) => name === "authorization" || name === "cookie")).toEqual({ accept: "*/*" });
  });

  it("does not change the headers it is given", () => {
    const headers = { connection: "x-a", "x-a": "1" };
    endToEndHeaders(headers);
    expect(headers).toEqual({ connection: "x-a", "x-a": "1" });
  });
});
