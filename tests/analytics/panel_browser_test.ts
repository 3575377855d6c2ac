/**
 * The dashboard's Analytics panel in headless Chromium against the real app on loopback, as an
 * owner reads it in their first hour: one row per query however typed, clicks and CTR per
 * query, the queries nobody clicked, lists that grow with "Show more", a chart whose one day
 * of searches is a bar (not the whole width), and the answers voted down with their question
 * and comment; at 1280 and 390 px, with nothing scrolling sideways.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { staleBundles } from "../../scripts/build.ts";
import {
  browserSuite,
  CHROMIUM_ARGS,
  loadPlaywright,
  makeSite,
  serveApp,
  sessionCookie,
} from "../widget/browser_helpers.ts";

const SHOTS = "/tmp/shots-analytics";
const PAGES = [
  { url: "/filters", title: "Custom filters", body: "Custom filters narrow results by a field." },
  { url: "/shipping", title: "Shipping", body: "We ship to Germany with DHL in 2 to 3 days." },
];

browserSuite("browser - the analytics panel an owner reads", async (t, executablePath) => {
  const app = await serveApp();
  const { chromium } = await loadPlaywright();
  const browser: Browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  await Deno.mkdir(SHOTS, { recursive: true });
  const errors: string[] = [];
  const json = (key: string, body: unknown) => ({
    method: "POST",
    headers: { "Content-Type": "application/json", "X-API-Key": key },
    body: JSON.stringify(body),
  });
  try {
    assert.deepEqual((await staleBundles()).map((b) => b.out), [], "run deno task build");
    const site = await makeSite(app.call, { plan: "pro", pages: PAGES });
    const search = async (q: string) => {
      const res = await app.call(`/api/search?key=${site.publicKey}&q=${encodeURIComponent(q)}`);
      assert.equal(res.status, 200);
      return (await res.json()).results as { url: string; click: string }[];
    };
    // Today's traffic: one query typed three ways and clicked once, one nobody clicked, and
    // 24 others that found nothing (more than the 20 rows a list shows first).
    let shown: { url: string; click: string }[] = [];
    for (const q of ["Custom  Filters!", "Custom Filters", "cústom filters"]) {
      shown = await search(q);
    }
    const click = await app.call(
      "/api/events",
      json(site.publicKey, {
        type: "click",
        query: "Custom Filters",
        position: 1,
        url: shown[0].url,
        click: shown[0].click,
      }),
    );
    assert.equal(click.status, 204);
    await click.body?.cancel();
    for (let i = 0; i < 2; i++) await search("shipping");
    for (let i = 1; i <= 24; i++) await search(`graphql zz${i}`);
    // An AI answer voted down, with a comment.
    const asked = await app.call(
      "/api/summarize",
      json(site.publicKey, { query: "How long does shipping to Germany take?" }),
    );
    const { conversationId } = await asked.json();
    const vote = await app.call(
      "/api/feedback",
      json(site.publicKey, {
        conversationId,
        turn: 1,
        helpful: false,
        comment: "It did not say which carrier.",
      }),
    );
    assert.equal(vote.status, 204);
    await vote.body?.cancel();

    const open = async (width: number): Promise<Page> => {
      const value = await sessionCookie(app.call, app.origin, site.adminKey);
      const ctx = await browser.newContext({ viewport: { width, height: 900 } });
      await ctx.addCookies([{ name: "sitesearch_session", value, url: app.origin }]);
      const page = await ctx.newPage();
      page.on("pageerror", (e) => errors.push(String(e)));
      await page.goto(app.origin + "/dashboard");
      await page.waitForSelector("html[data-islands=hydrated]");
      return page;
    };

    for (const width of [1280, 390]) {
      await t.step(`at ${width} px`, async () => {
        const page = await open(width);
        const panel = page.locator("#analytics");
        const top = panel.locator("table", { has: page.locator("caption", { hasText: "Top" }) });
        const rows = top.locator("tbody tr");
        await rows.first().waitFor();

        const filters = rows.filter({ hasText: /filters/i });
        assert.equal(await filters.count(), 1, "one row for the three ways it was typed");
        assert.deepEqual(await filters.locator("td").allTextContents(), [
          "Custom Filters",
          "3",
          "0",
          "1",
          "33.3%",
        ]);
        assert.deepEqual(
          await top.locator("th").allTextContents(),
          ["Query", "Searches", "No results", "Clicks", "CTR"],
        );
        const noClicks = panel.locator("table", {
          has: page.locator("caption", { hasText: "no clicks" }),
        });
        assert.deepEqual(await noClicks.locator("tbody tr td").allTextContents(), [
          "shipping",
          "2",
        ]);

        // 26 queries: 20 shown, then all of them.
        assert.equal(await rows.count(), 20);
        const empty = panel.locator("table", {
          has: page.locator("caption", { hasText: "no results" }),
        });
        assert.equal(await empty.locator("tbody tr").count(), 20);
        await panel.locator("button", { hasText: "Show more" }).first().click();
        await page.waitForFunction(() =>
          document.querySelectorAll("#analytics table")[0].querySelectorAll("tbody tr").length > 20
        );
        assert.equal(await rows.count(), 26);
        assert.equal(await empty.locator("tbody tr").count(), 24);
        assert.equal(await panel.locator("button", { hasText: "Show more" }).count(), 0);

        await panel.screenshot({ path: `${SHOTS}/analytics-${width}.png` });
        await panel.locator(".an-chart").screenshot({ path: `${SHOTS}/chart-${width}.png` });
        await top.locator("tr").nth(3).scrollIntoViewIfNeeded();
        await page.screenshot({
          path: `${SHOTS}/top-${width}.png`,
          clip: { ...(await top.boundingBox())!, height: 260 },
        });
        // One day of searches: one bar of a few pixels, not the chart's whole width.
        const bars = panel.locator(".an-bars");
        const chart = (await bars.boundingBox())!;
        const today = (await panel.locator(".an-bar").last().boundingBox())!;
        assert.ok(today.height > chart.height / 2, "today's bar stands high");
        assert.ok(today.width < chart.width / 10, `a bar, not a block: ${today.width}px`);
        const others = await panel.locator(".an-bar").evaluateAll((bs) =>
          bs.slice(0, -1).map((b) => Math.round(b.getBoundingClientRect().height))
        );
        assert.ok(others.every((h) => h === 0), "the days before had no searches");

        const down = panel.locator("[data-feedback=unhelpful] li");
        assert.equal(await down.count(), 1);
        assert.match(
          (await down.textContent())!,
          /How long does shipping to Germany take\?.*It did not say which carrier\./,
        );

        // Nothing wider than the window, and no word broken in two.
        const overflow = await page.evaluate(() =>
          document.documentElement.scrollWidth - document.documentElement.clientWidth
        );
        assert.equal(overflow, 0, "no sideways scrolling");
        const broken = await panel.locator("th, td, h3, h4, dt, button").evaluateAll((els) =>
          els.filter((el) => {
            // A word broken in two spans two lines within one word's own box.
            const range = document.createRange();
            const words = (el.textContent ?? "").split(/\s+/).filter(Boolean);
            let at = 0;
            const text = el.firstChild;
            if (!text || text.nodeType !== Node.TEXT_NODE) return false;
            return words.some((w) => {
              const start = (el.textContent ?? "").indexOf(w, at);
              at = start + w.length;
              range.setStart(text, start);
              range.setEnd(text, start + w.length);
              return range.getClientRects().length > 1;
            });
          }).map((el) => el.textContent)
        );
        assert.deepEqual(broken, [], "no word broken across lines");
        await page.context().close();
      });
    }
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await app.close();
  }
});
