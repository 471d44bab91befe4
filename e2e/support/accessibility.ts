/**
 * The journeys' accessibility check: axe-core's WCAG 2.0 and 2.1 level A and AA rules, run
 * in the browser on the page as the journey shows it, in the light and in the dark color
 * scheme (web/src/styles.css follows `prefers-color-scheme`).
 */
import { AxeBuilder } from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

const WCAG_A_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/** The page's violations as it is rendered now, each naming the scheme, the rule and the elements that break it. */
async function violations(page: Page, scheme: "light" | "dark"): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).withTags(WCAG_A_AA).analyze();
  return violations.map((v) => `[${scheme}] ${v.id} (${v.impact}): ${v.help}: ${v.nodes.map((node) => node.target.join(" ")).join(", ")}`);
}

/**
 * Fails when axe finds a violation on the page as it is now, in the light color scheme (the
 * journeys' own) or in the dark one, naming each scheme, rule and the elements that break
 * it. The page is left in the light scheme.
 */
export async function expectAccessible(page: Page): Promise<void> {
  const found = await violations(page, "light");
  await page.emulateMedia({ colorScheme: "dark" });
  try {
    found.push(...(await violations(page, "dark")));
  } finally {
    await page.emulateMedia({ colorScheme: "light" });
  }
  expect(found, `accessibility violations on ${new URL(page.url()).pathname}`).toEqual([]);
}
