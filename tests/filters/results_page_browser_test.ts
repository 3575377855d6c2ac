/**
 * Facet chips on the islands results page (`/search-results?filters=…`) in headless Chromium:
 * chips are links, so a filtered search is a URL of its own, and works before hydration.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import {
  browserSuite,
  CHROMIUM_ARGS,
  loadPlaywright,
  makeSite,
  serveApp,
} from "../widget/browser_helpers.ts";
import { BREW } from "./helpers.ts";

browserSuite(
  "browser - the islands results page shows facet chips that filter by the URL",
  async (t, executablePath) => {
    const api = await serveApp();
    const { chromium } = await loadPlaywright();
    const browser: Browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
    try {
      const site = await makeSite(api.call, { plan: "pro", pages: BREW });
      const page = await (await browser.newContext()).newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      const status = page.locator(".results .status");
      const chip = (group: string, value: string) =>
        page.locator(`.facets .fgroup[aria-label="${group}"] .chip`, { hasText: value });

      await t.step("a chip narrows the results and the URL carries the filter", async () => {
        await page.goto(
          `${api.origin}/search-results?key=${site.publicKey}&q=brewing&filters=category,level`,
        );
        await status.filter({ hasText: "5 results" }).waitFor();
        assert.equal(await page.locator(".facets .fgroup").count(), 2);
        await chip("category", "Guides").click();
        await status.filter({ hasText: "2 results" }).waitFor();
        const url = new URL(page.url());
        assert.deepEqual(url.searchParams.getAll("filter"), ["category:Guides"]);
        assert.equal(url.searchParams.get("filters"), "category,level");
        assert.deepEqual(
          (await page.locator(".results .hit .path").allTextContents()).sort(),
          ["/guides/pale-ale", "/guides/stout"],
        );
        assert.equal(await chip("category", "Guides").getAttribute("aria-current"), "true");
        // Another name ANDs with it; the chosen one's own counts stay whole.
        await chip("level", "Beginner").click();
        await status.filter({ hasText: "1 result" }).waitFor();
        assert.deepEqual(new URL(page.url()).searchParams.getAll("filter"), [
          "category:Guides",
          "level:Beginner",
        ]);
        assert.equal(await chip("category", "Kit").textContent(), "Kit(1)");
      });

      await t.step("clear filters goes back to every result", async () => {
        await page.locator(".facets .chip", { hasText: "Clear filters" }).click();
        await status.filter({ hasText: "5 results" }).waitFor();
        assert.deepEqual(new URL(page.url()).searchParams.getAll("filter"), []);
      });
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await api.close();
    }
  },
);
