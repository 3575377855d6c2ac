/**
 * A new owner's first hour, walked through end to end in headless Chromium at 1280 and 390 px
 * against the real app and a documentation site served over plain http on 127.0.0.1: crawl it,
 * open its own results page, tune it, read analytics, switch its language. Each step fails on
 * one problem an owner met (duplicates, links made https, a section pin refused, rows split by
 * punctuation, no gap suggestion, English chrome on a German site, pages wider than a phone).
 * The parts have their own tests; this one crosses their seams as an owner meets them.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { createApp } from "../../app.ts";
import { parseTrustedProxies } from "../../lib/http/proxies.ts";
import { html, serveSite } from "../fixtures/crawl_site.ts";
import { admin, OPERATOR } from "../helpers.ts";
import { TABLES } from "../../widget/i18n/all.ts";
import {
  browserSuite,
  CHROMIUM_ARGS,
  loadPlaywright,
  SCREENSHOTS,
  sessionCookie,
} from "../widget/browser_helpers.ts";

const HOME = html(
  "Zephyr Kettles documentation",
  `<h1>Zephyr Kettles documentation</h1><p>Start with <a href="/guide.html">the guide</a> or the ` +
    `<a href="/api.html">API reference</a>.</p>`,
);

/** The docs: a home page under two URLs, a reference with anchored sections, a guide. */
const DOCS = new Map([
  ["/robots.txt", { headers: { "Content-Type": "text/plain" }, body: "User-agent: *\n" }],
  ["/", HOME],
  ["/index.html", HOME],
  [
    "/api.html",
    html(
      "API reference",
      `<h1>API reference</h1><p>Every call of the kettle API.</p>` +
        `<h2 id="search-endpoint">Search endpoint</h2><p>Send a query and get matching kettles back, ` +
        `best first, with their prices and stock.</p>` +
        `<h2 id="custom-filters">Custom filters</h2><p>Narrow results with custom filters of your ` +
        `own fields: a category, a brand, a wattage. Filters combine with AND.</p>` +
        `<h2 id="rate-limits">Rate limits</h2><p>A key may send ten requests a second.</p>` +
        `<p><a href="/">Home</a> <a href="/index.html">Index</a></p>`,
    ),
  ],
  [
    "/guide.html",
    html(
      "Getting started",
      `<h1>Getting started</h1><p>Install the client, then add filters to your results page. ` +
        `Descaling a kettle keeps it quiet.</p><p><a href="/index.html">Back</a></p>`,
    ),
  ],
]);

browserSuite("browser - a new owner's first hour, walked through", async (t, executablePath) => {
  const kv = await Deno.openKv(":memory:");
  const { app, services } = createApp({
    kv,
    operatorToken: OPERATOR,
    log: () => {},
    crawl: { allowLoopback: true, delayMs: 0 },
    // Visitors told apart as behind a proxy: the gap suggestion counts distinct visitors.
    trustedProxies: parseTrustedProxies("127.0.0.1"),
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const call = (path: string, init?: RequestInit) => fetch(origin + path, init);
  const docs = serveSite(DOCS);
  const { chromium } = await loadPlaywright();
  const browser: Browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  await Deno.mkdir(SCREENSHOTS, { recursive: true });
  const shot = (name: string) => new URL(`first-hour-${name}.png`, SCREENSHOTS).pathname;
  const errors: string[] = [];

  const made = await (await call(
    "/api/admin/sites",
    admin(OPERATOR, {
      name: "Zephyr Kettles",
      plan: "business",
    }),
  )).json();
  const site = { id: made.site.id, publicKey: made.publicKey, adminKey: made.adminKey };
  const owner = (body?: unknown, method?: string) => admin(site.adminKey, body, method);

  const open = async (width: number, path: string, signedIn = false): Promise<Page> => {
    const ctx = await browser.newContext({ viewport: { width, height: 900 } });
    if (signedIn) {
      const value = await sessionCookie(call, origin, site.adminKey);
      await ctx.addCookies([{ name: "sitesearch_session", value, url: origin }]);
    }
    const page = await ctx.newPage();
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(origin + path);
    return page;
  };
  const results = (q: string) => `/search-results?key=${site.publicKey}&q=${encodeURIComponent(q)}`;
  const sideways = (page: Page) =>
    page.evaluate(() => document.scrollingElement!.scrollWidth - globalThis.innerWidth);

  try {
    await t.step("the crawl stores one page per document and keeps the site's scheme", async () => {
      const started = await (await call(
        `/api/admin/sites/${site.id}/crawl`,
        owner({ url: `${docs.origin}/` }),
      )).json();
      let job = started.job;
      for (let i = 0; i < 300 && (job.status === "queued" || job.status === "running"); i++) {
        await new Promise((r) => setTimeout(r, 20));
        job = await (await call(`/api/admin/sites/${site.id}/crawl/${job.id}`, owner())).json();
      }
      assert.equal(job.status, "done", JSON.stringify(job));
      const { pages } = await (await call(`/api/admin/sites/${site.id}/pages`, owner())).json();
      const urls = pages.map((p: { url: string }) => p.url).sort();
      assert.deepEqual(urls, ["/", "/api.html", "/guide.html"], "the home page once");
    });

    await t.step(
      "its own results page: one home result, http links, the typo noticed",
      async () => {
        const page = await open(1280, results("zephyr kettles documentation"));
        const hrefs = await page.locator(".hit h3 a").evaluateAll((as) =>
          as.map((a) => (a as HTMLAnchorElement).href)
        );
        assert.ok(hrefs.length >= 1);
        assert.equal(hrefs.filter((h) => /\/(index\.html)?$/.test(h)).length, 1, hrefs.join(" "));
        for (const h of hrefs) assert.ok(h.startsWith(`${docs.origin}/`), `${h} keeps http`);
        await page.screenshot({ path: shot("results-1280"), fullPage: true });
        await page.goto(origin + results("custum filters"));
        await page.getByText(/Showing results for/).waitFor();
        await page.close();
      },
    );

    await t.step("a pin of a section is taken, and the result links that section", async () => {
      const res = await call(
        `/api/admin/sites/${site.id}/curations`,
        owner({ curations: [{ query: "filters", pin: ["/api.html#custom-filters"] }] }, "PUT"),
      );
      assert.equal(res.status, 200, await res.text());
      const page = await open(1280, results("filters"));
      const first = await page.locator(".hit h3 a").first().getAttribute("href");
      assert.equal(first, `${docs.origin}/api.html#custom-filters`);
      await page.close();
    });

    await t.step("analytics count a query however it was typed, with clicks and gaps", async () => {
      const search = (q: string, visitor: string) =>
        call(`/api/search?key=${site.publicKey}&q=${encodeURIComponent(q)}`, {
          headers: { "X-Forwarded-For": visitor },
        }).then((r) => r.json());
      await search("Custom filters!", "203.0.113.1");
      await search("custom  filters", "203.0.113.2");
      await search("custom filters", "203.0.113.3");
      for (const v of ["203.0.113.4", "203.0.113.5", "203.0.113.6"]) await search("graphql", v);
      await services.analytics.flush();
      const report = await (await call(`/api/admin/sites/${site.id}/analytics`, owner())).json();
      const rows = report.topQueries.filter((r: { query: string }) => /custom/i.test(r.query));
      assert.equal(rows.length, 1, JSON.stringify(report.topQueries));
      assert.equal(rows[0].count, 3);
      assert.equal(rows[0].clicks, 0);
      assert.equal(rows[0].ctr, 0);
      assert.ok(
        report.noClickQueries.some((r: { query: string }) => /custom filters/i.test(r.query)),
      );
      const one = await (await call(`/api/admin/sites/${site.id}/analytics?limit=1`, owner()))
        .json();
      assert.equal(one.topQueries.length, 1);
      const { suggestions } = await (await call(
        `/api/admin/sites/${site.id}/suggestions`,
        owner(),
      )).json();
      assert.ok(
        suggestions.some((s: { kind: string; query: string }) =>
          s.kind === "gap" && s.query === "graphql"
        ),
        JSON.stringify(suggestions),
      );
    });

    await t.step("the dashboard and the results page fit a phone", async () => {
      for (
        const [name, path, signedIn] of [
          ["dashboard", "/dashboard", true],
          ["results", results("custom filters"), false],
        ] as const
      ) {
        const page = await open(390, path, signedIn);
        await page.waitForLoadState("networkidle");
        assert.equal(await sideways(page), 0, `${name} scrolls sideways at 390 px`);
        await page.screenshot({ path: shot(`${name}-390`), fullPage: true });
        await page.close();
      }
    });

    await t.step(
      "a German site's results page speaks German in its own header and footer",
      async () => {
        const res = await call(`/api/admin/sites/${site.id}`, {
          ...admin(OPERATOR, { lang: "de" }),
          method: "PATCH",
        });
        assert.equal(res.status, 200, await res.text());
        const page = await open(1280, results("filter"));
        assert.equal(await page.locator("html").getAttribute("lang"), "de");
        const nav = await page.locator("header.top nav a").allTextContents();
        assert.ok(
          nav.includes(TABLES.de.navHome) && !nav.includes(TABLES.en.navHome),
          nav.join(" "),
        );
        const foot = (await page.locator("footer.foot").textContent())!;
        assert.ok(foot.includes(TABLES.de.footerTagline), foot);
        await page.screenshot({ path: shot("results-de") });
        await page.close();
      },
    );
    assert.deepEqual(errors, [], "no script errors");
  } finally {
    await browser.close();
    await server.shutdown();
    await docs.close();
    services.analytics.discard();
    services.quota.discard();
    kv.close();
  }
});
