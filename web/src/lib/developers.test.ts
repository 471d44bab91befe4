import { describe, expect, it } from "vitest";
import { developerName, developerOptionLabel } from "./developers";

const dana = { email: "developer@acme-fintech.example", firstName: "Dana", lastName: "Developer", organization: { name: "Acme Fintech Ltd" } };

describe("developers' names", () => {
  it("joins the first and last names that are known", () => {
    expect(developerName(dana)).toBe("Dana Developer");
    expect(developerName({ ...dana, lastName: "" })).toBe("Dana");
    expect(developerName({ ...dana, firstName: "", lastName: "" })).toBe("");
  });

  it("labels a developer option with the email, the name when known, and the organization", () => {
    expect(developerOptionLabel(dana)).toBe("developer@acme-fintech.example (Dana Developer) · Acme Fintech Ltd");
    expect(developerOptionLabel({ ...dana, firstName: "", lastName: "" })).toBe("developer@acme-fintech.example · Acme Fintech Ltd");
  });
});
