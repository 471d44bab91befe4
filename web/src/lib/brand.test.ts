import { describe, expect, it } from "vitest";
import { parseBrand } from "./brand";

describe("parseBrand", () => {
  it("reads the name and the logo the server wrote", () => {
    expect(parseBrand('{"name":"Acme Bank","logoUrl":"/brand/logo.svg"}')).toEqual({ name: "Acme Bank", logoUrl: "/brand/logo.svg" });
    expect(parseBrand('{"name":"Acme Bank"}')).toEqual({ name: "Acme Bank" });
  });

  it.each([undefined, null, "", "not json", "null", '"Acme"', "{}", '{"name":""}', '{"name":42}'])("falls back to Tollgate for %j", (content) => {
    expect(parseBrand(content)).toEqual({ name: "Tollgate" });
  });

  it("leaves out a logo that is not a string", () => {
    expect(parseBrand('{"name":"Acme Bank","logoUrl":7}')).toEqual({ name: "Acme Bank" });
  });
});
