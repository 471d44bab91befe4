import { expect, test } from "@playwright/test";

test("the SPA is served by the server and cannot be framed", async ({ page }) => {
  const response = await page.goto("/login");
  expect(response?.status()).toBe(200);
  expect(response?.headers()["x-frame-options"]).toBe("DENY");
  expect(response?.headers()["content-security-policy"]).toContain("frame-ancestors 'none'");
  // Without ?interaction=… the login page cannot load a sign-in request and says so.
  await expect(page.getByRole("heading", { name: "This sign-in link is incomplete" })).toBeVisible();
});
