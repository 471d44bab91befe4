/**
 * The console's signing keys page (/admin/signing-keys), in Chromium against the built server:
 * an admin sees the server's keys (a current and a next key of PS256 and ES256, with their
 * dates) and asks to rotate one. The e2e server's JWKS_MAX_AGE_SECONDS is a day (env.ts), so
 * a next key made at its start may not sign during the run: the answer is "not yet", with from
 * when, and nothing changes; the request is in the audit log. (The promotion itself is
 * server/test/admin-signing-keys.test.ts's.) The page passes the accessibility checks.
 */
import { DEMO } from "../server/src/demo/seed.js";
import { expectAccessible } from "./support/accessibility.js";
import { consoleNav, panel, readTable, signInToConsole } from "./support/console.js";
import { expect, test } from "./support/fixtures.js";

test("an admin lists the signing keys and asks for a rotation before the next key may sign", async ({ page, db }) => {
  // Three accessibility checks, each in both color schemes.
  test.setTimeout(90_000);
  await signInToConsole(page);
  await consoleNav(page).getByRole("link", { name: "Signing keys", exact: true }).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Signing keys");

  const keys = panel(page, "Keys");
  const table = keys.getByRole("table", { name: "Signing keys" });
  const stored = await db.signingKey.findMany({ orderBy: { createdAt: "asc" } });
  const rows = await readTable(table);
  expect(rows.map((r) => `${r.Algorithm} ${r.State}`).sort()).toEqual(["ES256 current", "ES256 next", "PS256 current", "PS256 next"]);
  // Each key by the start of its kid, the whole kid on hover; where its private half is (sealed, not in an HSM); a next key's "signs from".
  for (const key of stored) {
    const row = table.getByRole("row").filter({ has: page.locator(`code[title="${key.kid}"]`) });
    await expect(row.getByRole("rowheader")).toContainText(`${key.kid.slice(0, 8)}…`);
    await expect(row.getByRole("cell").nth(2)).toHaveText("sealed");
    await expect(row.getByRole("cell").nth(6)).toHaveText(key.state === "next" ? /^signs from / : "—");
  }
  await expectAccessible(page);

  const next = stored.find((k) => k.alg === "PS256" && k.state === "next")!;

  const current = stored.find((k) => k.alg === "PS256" && k.state === "current")!;
  const rotate = keys.getByRole("button", { name: `Rotate now PS256 key ${current.kid.slice(0, 8)}…` });
  await rotate.click();
  const confirm = keys.getByRole("group", { name: /^Rotate the PS256 key now\?/ });
  await expect(confirm).toBeVisible();
  await expectAccessible(page);
  await confirm.getByRole("button", { name: "Yes, rotate" }).click();

  await expect(keys.getByRole("status").filter({ hasText: /^PS256 not rotated yet: its next key may sign from .+\. Rotate again from then\.$/ })).toBeVisible();
  await expect(rotate).toBeEnabled();
  expect((await db.signingKey.findMany({ orderBy: { createdAt: "asc" } })).map((k) => [k.kid, k.state])).toEqual(stored.map((k) => [k.kid, k.state]));
  const event = await db.auditEvent.findFirst({ where: { type: "admin.rotateSigningKey", subject: next.kid }, orderBy: { at: "desc" } });
  expect(event?.actor).toBe(`admin:${DEMO.admin.username}`);
  await expectAccessible(page);
});
