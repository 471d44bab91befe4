import { describe, expect, it } from "vitest";
import { GraphQLRequestError } from "../api/graphql";
import { explainingConflict } from "./conflicts";
import { FormInputError } from "./useGraphQL";

const refusal = (code: string, message: string) => Promise.reject(new GraphQLRequestError(200, [{ message, code }]));

describe("explainingConflict", () => {
  it("passes the answer through", async () => {
    await expect(explainingConflict(Promise.resolve("org-1"), "Delete its developers first.")).resolves.toBe("org-1");
  });

  it("says what to do after the server's words when the server refuses with CONFLICT", async () => {
    const err = await explainingConflict(refusal("CONFLICT", "the organization still has developers"), "Delete its developers first.").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FormInputError);
    expect((err as Error).message).toBe("The organization still has developers. Delete its developers first.");
  });

  it("leaves other refusals alone", async () => {
    const err = await explainingConflict(refusal("NOT_FOUND", "no such organization"), "Delete its developers first.").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GraphQLRequestError);
    expect((err as GraphQLRequestError).code).toBe("NOT_FOUND");
  });
});
