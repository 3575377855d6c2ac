/**
 * The dashboard's rough edges in headless Chromium against the real app on loopback: the key
 * rotation's grace period, the two search counts explained where they are shown, the usage
 * chart's axes and its empty state, and Delete/Keep confirmations that line up.
 */
import assert from "node:assert/strict";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { staleBundles } from "../../scripts/build.ts";
import { OPERATOR } from "../helpers.ts";
import {
  browserSuite,
  CHROMIUM_ARGS,
  loadPlaywright,
  makeSite,
  SCREENSHOTS,
  serveApp,
  sessionCookie,
} from "../widget/browser_helpers.ts";

const PAGES = [
  { url: "/kettles", title: "Kettles", body: "Gooseneck kettles that pour slowly." },
  { url: "/shipping", title: "Shipping", body: "Kettles ship within two days." },
];

/** The vertical middle of an element on the page. */
async function middle(l: Locator): Promise<number> {
  const box = await l.boundingBox();
  assert.ok(box, "the element is shown");
  return box.y + box.height / 2;
}

browserSuite(
  "browser - the dashboard's keys, usage and confirmations",
  async (t, executablePath) => {
    const app = await serveApp();
    const { chromium } = await loadPlaywright();
    const browser: Browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
    await Deno.mkdir(SCREENSHOTS, { recursive: true });
    const shot = (name: string) => new URL(`dashboard-${name}.png`, SCREENSHOTS).pathname;
    const errors: string[] = [];
    const signedIn = async (key: string, width = 1280): Promise<[BrowserContext, Page]> => {
      const value = await sessionCookie(app.call, app.origin, key);
      const ctx = await browser.newContext({ viewport: { width, height: 900 } });
      await ctx.addCookies([{ name: "sitesearch_session", value, url: app.origin }]);
      const page = await ctx.newPage();
      page.on("pageerror", (e) => errors.push(String(e)));
      await page.goto(app.origin + "/dashboard");
      await page.waitForSelector("html[data-islands=hydrated]");
      return [ctx, page];
    };
    const searchStatus = async (key: string) => {
      const res = await app.call(`/api/search?key=${key}&q=kettles`);
      await res.body?.cancel();
      return res.status;
    };

    try {
      assert.deepEqual((await staleBundles()).map((b) => b.out), [], "run deno task build");
      const site = await makeSite(app.call, { plan: "pro", pages: PAGES });

      await t.step(
        "a site nobody searched yet shows the chart's axes and says it is empty",
        async () => {
          const [ctx, page] = await signedIn(site.adminKey);
          const chart = page.locator("#usage figure.chart");
          await chart.locator(".chart-empty", { hasText: "No searches yet this month" }).waitFor();
          assert.deepEqual(await chart.locator(".y-axis span").allTextContents(), ["2", "1", "0"]);
          const dates = await chart.locator(".x-axis span").allTextContents();
          const today = new Date();
          const month = today.toLocaleString("en", { month: "short", timeZone: "UTC" });
          assert.equal(dates[0], `${month} 1`, "the month starts on the 1st");
          const last = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 1, 0));
          assert.equal(dates.at(-1), `${month} ${last.getUTCDate()}`, "and runs to its last day");
          await page.locator("#usage").screenshot({ path: shot("usage-empty") });
          await ctx.close();
        },
      );

      await t.step(
        "the usage chart's count axis covers the busiest day once visitors search",
        async () => {
          for (let i = 0; i < 7; i++) assert.equal(await searchStatus(site.publicKey), 200);
          const [ctx, page] = await signedIn(site.adminKey);
          const chart = page.locator("#usage figure.chart");
          assert.equal(await chart.locator(".chart-empty").count(), 0);
          // 7 searches today: the axis tops at the next of 1, 2, 5 × 10ⁿ.
          assert.deepEqual(await chart.locator(".y-axis span").allTextContents(), ["10", "5", "0"]);
          const label = await chart.locator("svg").getAttribute("aria-label");
          assert.match(label!, /This month: 7 finished searches/);
          // Each day of the month has its slot: the days so far never fill the chart as a block.
          const widths = await chart.locator("rect.bar:not(.answers)").evaluateAll((rs) =>
            rs.map((r) => Number(r.getAttribute("width")))
          );
          assert.ok(widths.every((w) => w <= 600 / 28), `bars ${widths.join(", ")} of 600`);
          await page.locator("#usage").screenshot({ path: shot("usage-days") });
          await ctx.close();
        },
      );

      await t.step(
        "the two search counts say, where they are shown, what each counts",
        async () => {
          const [ctx, page] = await signedIn(site.adminKey);
          const usageNote = page.locator("#month-note");
          assert.ok(await usageNote.isVisible());
          assert.match(await usageNote.textContent() ?? "", /monthly quota counts.*finished/s);
          const meter = page.locator("meter[aria-labelledby=m-month]");
          assert.equal(await meter.getAttribute("aria-describedby"), "month-note");
          const analyticsNote = page.locator("#analytics #searches-note");
          assert.ok(await analyticsNote.isVisible());
          assert.match(await analyticsNote.textContent() ?? "", /finished searches.*quota/s);
          const dt = page.locator("#analytics dt", { hasText: /^Searches$/ });
          assert.equal(await dt.getAttribute("aria-describedby"), "searches-note");
          await ctx.close();
        },
      );

      await t.step(
        "rotating the public key keeps the old key working a day by default, until a time it shows",
        async () => {
          const [ctx, page] = await signedIn(site.adminKey);
          const keys = page.locator("#keys");
          await keys.locator("button", { hasText: "Rotate public key…" }).click();
          const options = await keys.locator("#grace option").allTextContents();
          assert.deepEqual(options, ["None", "1 hour", "1 day", "7 days"]);
          const chosen = await keys.locator("#grace").evaluate((s: HTMLSelectElement) =>
            s.selectedOptions[0].textContent
          );
          assert.equal(chosen, "1 day", "a day's grace unless the owner picks another");
          const warn = await keys.locator("[data-warn]").textContent() ?? "";
          const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
          assert.match(
            warn,
            new RegExp(`keeps working until about ${tomorrow} \\d\\d:\\d\\d UTC`),
          );
          await keys.screenshot({ path: shot("keys-confirm") });
          const old = site.publicKey;
          const before = Date.now();
          await keys.locator("button", { hasText: "Rotate the public key now" }).click();
          await keys.locator(".status.ok", { hasText: "The public key was rotated." }).waitFor();
          const fresh = (await keys.locator("[data-key=public]").textContent())!;
          assert.notEqual(fresh, old);
          const oldLine = keys.locator("[data-old-key]");
          assert.equal(await oldLine.locator("code").textContent(), old);
          const until = Date.parse((await oldLine.locator("time").getAttribute("datetime"))!);
          assert.ok(until >= before + 86_400_000 - 1000 && until <= Date.now() + 86_400_000 + 1000);
          assert.equal(await searchStatus(old), 200, "the old key works in its grace period");
          assert.equal(await searchStatus(fresh), 200);
          await keys.screenshot({ path: shot("keys-grace") });
          // A reload still says until when the old key works (the server renders it).
          await page.reload();
          await page.waitForSelector("html[data-islands=hydrated]");
          assert.equal(await keys.locator("[data-old-key] code").textContent(), old);

          // Rotating again with no grace ends both the old keys at once.
          await keys.locator("button", { hasText: "Rotate public key…" }).click();
          await keys.locator("#grace").selectOption({ label: "None" });
          assert.match(
            await keys.locator("[data-warn]").textContent() ?? "",
            /stops working at once/,
          );
          await keys.locator("button", { hasText: "Rotate the public key now" }).click();
          await keys.locator(".status.ok", { hasText: "The public key was rotated." }).waitFor();
          const third = (await keys.locator("[data-key=public]").textContent())!;
          assert.equal(await keys.locator("[data-old-key]").count(), 0);
          assert.equal(await searchStatus(old), 401);
          assert.equal(await searchStatus(fresh), 401);
          assert.equal(await searchStatus(third), 200);
          site.publicKey = third;
          await ctx.close();
        },
      );

      await t.step(
        "the Delete and Keep buttons line up with each other and their row",
        async () => {
          for (const width of [1280, 390]) {
            const [ctx, page] = await signedIn(site.adminKey, width);
            const row = page.locator("#content .rows li", { hasText: "/kettles" });
            await row.locator("button", { hasText: "Delete…" }).click();
            const del = row.locator("button", { hasText: /^Delete$/ });
            const keep = row.locator("button", { hasText: "Keep" });
            const [a, b] = [await del.boundingBox(), await keep.boundingBox()];
            assert.ok(a && b);
            assert.ok(Math.abs(a.y - b.y) < 1 && Math.abs(a.height - b.height) < 1, `${width}px`);
            assert.ok(Math.abs(await middle(del) - await middle(row)) < 2, `centred in the row`);
            await row.screenshot({ path: shot(`confirm-page-${width}`) });
            await ctx.close();
          }
          // A long name makes the question wrap on a phone: the two answers stay together.
          const long = await app.call("/api/admin/sites", {
            method: "POST",
            headers: { Authorization: `Bearer ${OPERATOR}`, "Content-Type": "application/json" },
            body: JSON.stringify({
              name: "Zephyr Kettles and Coffee Roasting Company",
              plan: "free",
            }),
          });
          await long.body?.cancel();
          for (const width of [1280, 390]) {
            const [ctx, page] = await signedIn(OPERATOR, width);
            const item = page.locator(".site-item", { hasText: "Roasting Company" });
            await item.locator("button", { hasText: "Delete…" }).click();
            const question = item.locator(".row-actions span", { hasText: "and all its data?" });
            const del = item.locator("button", { hasText: "Delete site" });
            const keep = item.locator("button", { hasText: "Keep" });
            const [a, b, q] = [
              await del.boundingBox(),
              await keep.boundingBox(),
              await question.boundingBox(),
            ];
            assert.ok(a && b && q);
            assert.ok(Math.abs(a.y - b.y) < 1 && Math.abs(a.height - b.height) < 1, `${width}px`);
            assert.ok(a.x < b.x, "Keep sits beside Delete site");
            if (q.y + q.height <= a.y) {
              assert.ok(Math.abs(a.x - q.x) < 2, "wrapped, the answers start under the question");
            } else {
              assert.ok(
                Math.abs(await middle(question) - await middle(del)) < 2,
                "text and buttons align",
              );
            }
            await item.screenshot({ path: shot(`confirm-site-${width}`) });
            await keep.click();
            await item.locator("button", { hasText: "Delete…" }).waitFor();
            await ctx.close();
          }
        },
      );

      await t.step(
        "the API reference selects a whole curl line with the site's key in one click, and fits a phone",
        async () => {
          for (const width of [1280, 390]) {
            const [ctx, page] = await signedIn(site.adminKey, width);
            await page.goto(app.origin + "/docs/api");
            const curl = page.locator("[data-curl=get-api-search]");
            await curl.click();
            const selected = await page.evaluate(() => String(getSelection()));
            assert.equal(selected.trim(), (await curl.textContent())!.trim());
            assert.ok(selected.includes(`X-API-Key: ${site.publicKey}`), selected);
            const overflow = await page.evaluate(() =>
              document.documentElement.scrollWidth - innerWidth
            );
            assert.ok(overflow <= 0, `the page fits ${width} px (${overflow} px over)`);
            await page.screenshot({ path: shot(`docs-${width}`), fullPage: false });
            await ctx.close();
          }
        },
      );

      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await app.close();
    }
  },
);
