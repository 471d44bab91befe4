import { expect, test } from "@playwright/test";
import { expectAccessible } from "./support/accessibility.js";

test("the SPA is served by the server and cannot be framed", async ({ page }) => {
  const response = await page.goto("/login");
  expect(response?.status()).toBe(200);
  expect(response?.headers()["x-frame-options"]).toBe("DENY");
  expect(response?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
  // Without ?interaction=… the login page cannot load a sign-in request and says so.
  await expect(page.getByRole("heading", { name: "This sign-in link is incomplete" })).toBeVisible();
  await expectAccessible(page);
});

test("an unknown sign-in request ends on the error page, with the server's reason", async ({ page }) => {
  await page.goto("/consent?interaction=no-such-interaction");
  await expect(page).toHaveURL((url) => url.pathname === "/error" && url.searchParams.get("error") === "not_found");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Something went wrong");
  await expect(page.getByText("This sign-in request does not exist.")).toBeVisible();
  await expect(page.getByText("Error code: not_found")).toBeVisible();
  await expectAccessible(page);
});
