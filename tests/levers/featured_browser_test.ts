/**
 * A result an owner pinned reads "Featured", in the visitor's language, in results.js, the
 * live search bar and the islands results page (issue 28: curations).
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { TABLES } from "../../widget/i18n/all.ts";
import {
  BAR,
  browserSuite,
  CHROMIUM_ARGS,
  loadPlaywright,
  makeSite,
  RESULTS,
  resultsTag,
  serveApp,
  serveHost,
  widgetTag,
} from "../widget/browser_helpers.ts";

const PAGES = [
  { url: "/kettles/zephyr", title: "Zephyr kettle", body: "The zephyr kettle boils quietly." },
  { url: "/kettles/gale", title: "Gale kettle", body: "The gale kettle boils fast." },
  { url: "/care/descaling", title: "Descaling", body: "Descale a kettle with citric acid." },
];

browserSuite("browser - a pinned result reads Featured in the site's language", async (t, path) => {
  const api = await serveApp();
  const host = serveHost();
  const { chromium } = await loadPlaywright();
  const browser: Browser = await chromium.launch({ executablePath: path, args: CHROMIUM_ARGS });
  try {
    const site = await makeSite(api.call, { plan: "pro", pages: PAGES });
    const put = await api.call(`/api/admin/sites/${site.id}/curations`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${site.adminKey}`, "Content-Type": "application/json" },
      body: JSON.stringify({
        curations: [{ query: "kettle", match: "exact", pin: ["/care/descaling"], hide: [] }],
      }),
    });
    assert.equal(put.status, 200);
    await put.body?.cancel();

    for (const lang of ["en", "de", "ja"] as const) {
      await t.step(
        `${lang}: results.js and the bar mark the pinned page, and only it`,
        async () => {
          host.pages.set(`/r-${lang}`, {
            head: resultsTag(api.origin, site.publicKey) +
              widgetTag(api.origin, site.publicKey, { "data-live": "true" }),
            body: `<header><div data-site-search></div></header>` +
              `<main><div data-site-search-results></div></main>`,
            lang,
          });
          const ctx = await browser.newContext();
          const page = await ctx.newPage();
          await page.goto(`${host.origin}/r-${lang}?q=kettle`);
          const first = page.locator(`${RESULTS} .hit`).first();
          await first.locator(".featured").waitFor();
          assert.equal(await first.locator(".featured").textContent(), TABLES[lang].featured);
          assert.equal(await first.locator("h3").textContent(), "Descaling");
          assert.equal(await page.locator(`${RESULTS} .featured`).count(), 1, "one pinned page");
          // The live bar's suggestions say it too.
          await page.locator(`${BAR} input`).pressSequentially("kettle", { delay: 40 });
          const option = page.locator(`${BAR} [role=option]`).first();
          await option.locator(".featured").waitFor();
          assert.equal(await option.locator(".featured").textContent(), TABLES[lang].featured);
          await ctx.close();
        },
      );
    }

    await t.step("the islands results page marks it too", async () => {
      const res = await api.call(`/search-results?key=${site.publicKey}&q=kettle&lang=de`);
      const html = await res.text();
      const featured = [...html.matchAll(/<p class="featured">([^<]*)<\/p>/g)].map((m) => m[1]);
      assert.deepEqual(featured, [TABLES.de.featured]);
    });
  } finally {
    await browser.close();
    await host.close();
    await api.close();
  }
});
