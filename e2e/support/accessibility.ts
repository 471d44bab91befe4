/**
 * The journeys' accessibility check: axe-core's WCAG 2.0 and 2.1 level A and AA rules, run
 * in the browser on the page as the journey shows it.
 */
import { AxeBuilder } from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

const WCAG_A_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/** Fails when axe finds a violation on the page as it is now, naming each rule and the elements that break it. */
export async function expectAccessible(page: Page): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).withTags(WCAG_A_AA).analyze();
  const found = violations.map((v) => `${v.id} (${v.impact}): ${v.help}: ${v.nodes.map((node) => node.target.join(" ")).join(", ")}`);
  expect(found, `accessibility violations on ${new URL(page.url()).pathname}`).toEqual([]);
}
