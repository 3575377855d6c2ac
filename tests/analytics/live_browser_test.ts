/**
 * A typing session in the widget, as the analytics report counts it (docs/api.md, "Live search"):
 * a question typed at 150 ms a key and then acted on (Enter, or a click on a result) is one
 * query in "Top queries", never its prefixes. Headless Chromium, the real app on loopback.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import {
  BAR,
  browserSuite,
  CHROMIUM_ARGS,
  loadPlaywright,
  makeSite,
  OPTION,
  RESULTS,
  resultsTag,
  serveApp,
  serveHost,
  widgetTag,
} from "../widget/browser_helpers.ts";
import { admin } from "../helpers.ts";

const PAGES = [
  {
    url: "/shipping/germany",
    title: "Shipping to Germany",
    body: "Shipping to Germany usually takes two to three working days.",
  },
  {
    url: "/beans/decaf",
    title: "Decaf beans",
    body: "Our decaf is made with the Swiss water process.",
  },
  {
    url: "/guides/grinder",
    title: "Choosing a grinder",
    body: "A burr grinder keeps the grind even.",
  },
];

browserSuite(
  "browser - a question typed in the widget is one query in the analytics",
  async (t, executablePath) => {
    const api = await serveApp();
    const host = serveHost();
    const { chromium } = await loadPlaywright();
    const browser: Browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
    /** The site's searches and top queries today, as the owner's report shows them. */
    const report = async (site: { id: string; adminKey: string }) => {
      const res = await api.call(
        `/api/admin/sites/${site.id}/analytics?days=1`,
        admin(site.adminKey),
      );
      const body = await res.json();
      return {
        searches: body.days[0].searches as number,
        top: body.topQueries.map((q: { query: string; count: number }) => [q.query, q.count]),
      };
    };
    const typeIn = async (page: Page, q: string) => {
      const input = page.locator(`${BAR} input`);
      await input.click();
      await input.pressSequentially(q, { delay: 150 });
      await page.locator(`${BAR} [role=listbox]`).and(page.locator(`[data-query="${q}"]`))
        .waitFor();
      return input;
    };
    try {
      await t.step("typed, then Enter: the results page's search is the one query", async () => {
        const site = await makeSite(api.call, { plan: "free", pages: PAGES });
        const tags = widgetTag(api.origin, site.publicKey, {
          "data-live": "true",
          "data-results-page": "/enter/results",
        });
        host.pages.set("/enter/live", {
          head: tags,
          body: `<header><div data-site-search></div></header><main><p>A host page.</p></main>`,
        });
        host.pages.set("/enter/results", {
          head: tags + resultsTag(api.origin, site.publicKey),
          body: `<main><div data-site-search-results></div></main>`,
        });
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(host.origin + "/enter/live");
        const q = "how long does shipping to germany usually take?";
        const input = await typeIn(page, q);
        await input.press("Enter");
        await page.locator(RESULTS).getByText("Shipping to Germany").first().waitFor();
        assert.deepEqual(await report(site), { searches: 1, top: [[q, 1]] });
        await context.close();
      });

      await t.step("typed, then a result clicked: that query is counted at once", async () => {
        const site = await makeSite(api.call, { plan: "free", pages: PAGES });
        host.pages.set("/click/live", {
          head: widgetTag(api.origin, site.publicKey, { "data-live": "true" }),
          body: `<header><div data-site-search></div></header><main><p>A host page.</p></main>`,
        });
        const context = await browser.newContext();
        const page = await context.newPage();
        await page.goto(host.origin + "/click/live");
        const q = "decaf swiss water";
        await typeIn(page, q);
        await page.locator(OPTION).first().click();
        let got = await report(site);
        for (let i = 0; i < 50 && got.searches === 0; i++) { // the click goes as a beacon
          await new Promise((r) => setTimeout(r, 100));
          got = await report(site);
        }
        assert.deepEqual(got, { searches: 1, top: [[q, 1]] });
        await context.close();
      });
    } finally {
      await browser.close();
      await host.close();
      await api.close();
    }
  },
);
