/**
 * Facet chips of results.js (data-filters) in headless Chromium, on a host page of another
 * origin: a chip narrows the results and puts the filter in the URL; the URL shared opens
 * the same filtered search; Back and "Clear filters" undo it.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import {
  browserSuite,
  CHROMIUM_ARGS,
  loadPlaywright,
  makeSite,
  resultsTag,
  serveApp,
  serveHost,
} from "../widget/browser_helpers.ts";
import { BREW } from "./helpers.ts";

const RESULTS = "[data-sitesearch=results]";

browserSuite(
  "browser - results.js facet chips filter the results and keep the state in the URL",
  async (t, executablePath) => {
    const api = await serveApp();
    const host = serveHost();
    const { chromium } = await loadPlaywright();
    const browser: Browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
    try {
      const site = await makeSite(api.call, { plan: "pro", pages: BREW });
      host.pages.set("/results", {
        head: resultsTag(api.origin, site.publicKey, { "data-filters": "section,category" }),
        body: `<main><h1>Search results</h1><div data-site-search-results></div></main>`,
      });
      host.pages.set("/plain", {
        head: resultsTag(api.origin, site.publicKey),
        body: `<main><div data-site-search-results></div></main>`,
      });
      const page = await (await browser.newContext()).newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      const hits = page.locator(`${RESULTS} .hit`);
      const chip = (group: string, value: string) =>
        page.locator(`${RESULTS} .fgroup[aria-label="${group}"] .chip`, { hasText: value });
      const count = page.locator(`${RESULTS} .count`);

      await t.step("the chosen names' values show as chips with their counts", async () => {
        await page.goto(`${host.origin}/results?q=brewing`);
        await count.filter({ hasText: "5 results" }).waitFor();
        assert.equal(await hits.count(), 5);
        const groups = await page.locator(`${RESULTS} .fgroup .fname`).allTextContents();
        assert.deepEqual(groups, ["section", "category"], "in data-filters' order, no others");
        assert.equal((await chip("category", "Guides").textContent())?.trim(), "Guides(2)");
        assert.equal(await chip("category", "Guides").getAttribute("aria-pressed"), "false");
      });

      await t.step(
        "clicking a chip narrows the results and puts the filter in the URL",
        async () => {
          await chip("category", "Guides").click();
          await count.filter({ hasText: "2 results" }).waitFor();
          const urls = await page.locator(`${RESULTS} .hit .path`).allTextContents();
          assert.deepEqual(urls.sort(), ["/guides/pale-ale", "/guides/stout"]);
          const url = new URL(page.url());
          assert.deepEqual(url.searchParams.getAll("filter"), ["category:Guides"]);
          assert.equal(await chip("category", "Guides").getAttribute("aria-pressed"), "true");
          // Other names count only what the filter leaves: the shop is gone from section.
          const sections = await page.locator(`${RESULTS} .fgroup[aria-label="section"] .chip`)
            .allTextContents();
          assert.deepEqual(sections, ["guides(2)"]);
        },
      );

      await t.step(
        "the shared URL opens the same filtered search; Back and Clear undo",
        async () => {
          const shared = page.url();
          const other = await (await browser.newContext()).newPage();
          await other.goto(shared);
          await other.locator(`${RESULTS} .count`, { hasText: "2 results" }).waitFor();
          assert.equal(
            await other.locator(`${RESULTS} .chip[aria-pressed=true]`).first().textContent(),
            "Guides(2)",
          );
          await other.close();
          await page.goBack();
          await count.filter({ hasText: "5 results" }).waitFor();
          assert.deepEqual(new URL(page.url()).searchParams.getAll("filter"), []);
          await page.goForward();
          await count.filter({ hasText: "2 results" }).waitFor();
          await page.locator(`${RESULTS} .chip`, { hasText: "Clear filters" }).click();
          await count.filter({ hasText: "5 results" }).waitFor();
          assert.deepEqual(new URL(page.url()).searchParams.getAll("filter"), []);
        },
      );

      await t.step("without data-filters no chips show and no facets are asked for", async () => {
        const asked: string[] = [];
        page.on("request", (r) => {
          if (r.url().includes("/api/search")) asked.push(r.url());
        });
        await page.goto(`${host.origin}/plain?q=brewing`);
        await count.filter({ hasText: "5 results" }).waitFor();
        assert.equal(await page.locator(`${RESULTS} .chip`).count(), 0);
        assert.ok(asked.length > 0 && asked.every((u) => u.includes("facets=false")), asked.join());
      });
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await host.close();
      await api.close();
    }
  },
);
