import { describe, expect, it } from "vitest";
import { appFilterVariables, appStatusText, readAppFilter } from "./apps";
import { routes } from "./routes";

describe("the apps page's filter", () => {
  it("round-trips through the URL and becomes the query's filter", () => {
    const filter = { search: "acme", organization: "org1", developer: "dev1", status: "revoked" } as const;
    const url = new URL(routes.apps(filter), "http://localhost");
    expect(url.pathname).toBe("/admin/apps");
    expect(readAppFilter(url.searchParams)).toEqual(filter);
    expect(appFilterVariables(filter)).toEqual({ search: "acme", organizationId: "org1", developerId: "dev1", status: "revoked" });
  });

  it("leaves out what is not given, and ignores an unknown status", () => {
    expect(routes.apps()).toBe("/admin/apps");
    expect(routes.apps({ developer: "dev1", search: "" })).toBe("/admin/apps?developer=dev1");
    const filter = readAppFilter(new URLSearchParams("status=deleted&search=%20%20"));
    expect(filter).toEqual({ search: "", organization: "", developer: "", status: "" });
    expect(appFilterVariables(filter)).toBeUndefined();
  });

  it("filters registrations awaiting the bank's approval", () => {
    const filter = readAppFilter(new URL(routes.apps({ status: "pending" }), "http://localhost").searchParams);
    expect(filter.status).toBe("pending");
    expect(appFilterVariables(filter)).toEqual({ status: "pending" });
  });
});

describe("an app's status in words", () => {
  it("says a pending app awaits approval", () => {
    expect(appStatusText("pending")).toBe("pending approval");
    expect(appStatusText("approved")).toBe("approved");
    expect(appStatusText("revoked")).toBe("revoked");
  });
});
