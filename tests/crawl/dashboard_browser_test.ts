/**
 * The dashboard's crawl controls in headless Chromium, against the real app on loopback:
 * the settings form explains each refusal beside its field (a loopback start URL names
 * CRAWL_ALLOW_LOOPBACK), a crawl shows true progress and a page count that grows while it
 * runs, and its failed and skipped URLs are listed with reasons, a page at a time.
 */
import assert from "node:assert/strict";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createApp } from "../../app.ts";
import { staleBundles } from "../../scripts/build.ts";
import { html, serveSite } from "../fixtures/crawl_site.ts";
import { OPERATOR } from "../helpers.ts";
import {
  browserSuite,
  CHROMIUM_ARGS,
  loadPlaywright,
  makeSite,
  SCREENSHOTS,
  sessionCookie,
} from "../widget/browser_helpers.ts";

/** The app on 127.0.0.1; `allowLoopback` as CRAWL_ALLOW_LOOPBACK sets it. */
async function serve(allowLoopback: boolean) {
  const kv = await Deno.openKv(":memory:");
  const { app, services } = createApp({
    kv,
    operatorToken: OPERATOR,
    log: () => {},
    crawl: { allowLoopback, delayMs: 60, resolve: () => Promise.resolve(["10.1.2.3"]) },
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const origin = `http://127.0.0.1:${server.addr.port}`;
  return {
    origin,
    call: ((path, init) => fetch(origin + String(path), init)) as typeof fetch,
    close: async () => {
      await server.shutdown();
      services.analytics.discard();
      kv.close();
    },
  };
}

const BY_HAND = [{ url: "/by-hand", title: "By hand", body: "A page added by hand." }];

/** 30 pages, 60 links off the site, 3 broken links and a folder robots.txt keeps out. */
function fixtureSite() {
  const pages = Array.from({ length: 30 }, (_, i) => `/guide/${i}`);
  const links = [
    ...pages,
    ...Array.from({ length: 60 }, (_, i) => `http://elsewhere-${i}.example/`),
    "/gone/1",
    "/gone/2",
    "/gone/3",
    "/private/x",
  ].map((h) => `<a href="${h}">${h}</a>`).join(" ");
  return serveSite(
    new Map([
      ["/robots.txt", {
        headers: { "Content-Type": "text/plain" },
        body: "User-agent: *\nDisallow: /private/\n",
      }],
      ["/", html("Guides", `<p>All the guides.</p>${links}`)],
      ["/about", html("About", "<p>About the guides.</p>")],
      ...pages.map((p, i) => [p, html(`Guide ${i}`, `<p>Guide number ${i}.</p>`)] as const),
    ]),
  );
}

browserSuite("crawl dashboard - settings, progress and URL lists", async (t, executablePath) => {
  const app = await serve(true);
  const strict = await serve(false);
  const fixture = fixtureSite();
  const { chromium } = await loadPlaywright();
  const browser: Browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  await Deno.mkdir(SCREENSHOTS, { recursive: true });
  const errors: string[] = [];

  /** A page of the dashboard, signed in with the site's admin key. */
  const dashboard = async (a: typeof app, key: string): Promise<[BrowserContext, Page]> => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 1400 } });
    const value = await sessionCookie(a.call, a.origin, key);
    await ctx.addCookies([{ name: "sitesearch_session", value, url: a.origin }]);
    const page = await ctx.newPage();
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(a.origin + "/dashboard");
    await page.waitForSelector("html[data-islands=hydrated]");
    return [ctx, page];
  };
  const fieldError = (page: Page, field: string) =>
    page.locator(`#crawl-${field}-error`).textContent({ timeout: 5000 });

  try {
    assert.deepEqual((await staleBundles()).map((b) => b.out), [], "run deno task build");

    await t.step("each field is checked with a clear message beside it", async () => {
      const site = await makeSite(strict.call, { plan: "pro", pages: BY_HAND });
      const [ctx, page] = await dashboard(strict, site.adminKey);
      await page.click("#content button[type=submit]:has-text('Crawl now')");
      assert.match(await fieldError(page, "url") ?? "", /Enter your site's sitemap or home page/);
      await page.fill("#crawl-url", "my docs");
      await page.fill("#crawl-max", "ten");
      await page.click("#content button[type=submit]:has-text('Crawl now')");
      assert.match(await fieldError(page, "url") ?? "", /full URL starting with https:\/\//);
      assert.match(await fieldError(page, "maxPages") ?? "", /whole number of at least 1/);
      assert.equal(await page.getAttribute("#crawl-max", "aria-invalid"), "true");
      // The message is beside the field it is about, which has the focus; the summary says so.
      assert.equal(await page.evaluate(() => document.activeElement?.id), "crawl-url");
      await page.locator(".status", { hasText: "see the message beside the field" }).waitFor();
      // A host without a scheme is no mistake: https:// is added, and said.
      await page.fill("#crawl-url", "example.com/docs");
      await page.click("#content button[type=submit]:has-text('Crawl now')");
      await page.waitForSelector("[data-crawl-scheme]");
      assert.equal(await page.inputValue("#crawl-url"), "https://example.com/docs");
      assert.equal(await page.locator("#crawl-url-error").count(), 0);
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 1400 });
        await page.locator("form.crawl-form").screenshot({
          path: new URL(`crawl-form-${width}.png`, SCREENSHOTS).pathname,
        });
      }
      await page.setViewportSize({ width: 1280, height: 1400 });

      // A pattern the server cannot compile: its message, beside the field.
      await page.fill("#crawl-max", "");
      await page.fill("#crawl-url", "https://docs.example/");
      await page.fill("#crawl-exclude", "no-slash");
      await page.click("#content button:has-text('Save settings')");
      assert.match(await fieldError(page, "exclude") ?? "", /must start with "\/"/);

      // Loopback: refused, with why and the setting that allows it.
      await page.fill("#crawl-exclude", "/drafts/**");
      await page.fill("#crawl-url", fixture.origin + "/");
      await page.click("#content button[type=submit]:has-text('Crawl now')");
      const loopback = await fieldError(page, "url") ?? "";
      assert.match(loopback, /loopback/);
      assert.match(loopback, /CRAWL_ALLOW_LOOPBACK=true/);
      await page.screenshot({ path: new URL("crawl-settings-refused.png", SCREENSHOTS).pathname });

      // A private address: refused, with why, and no loopback setting offered.
      await page.fill("#crawl-url", "http://10.0.0.8/");
      await page.click("#content button[type=submit]:has-text('Crawl now')");
      await page.locator("#crawl-url-error", { hasText: "private" }).waitFor();
      assert.doesNotMatch(await fieldError(page, "url") ?? "", /CRAWL_ALLOW_LOOPBACK/);

      // Patterns and schedule are saved.
      await page.selectOption("#crawl-recrawl", "weekly");
      await page.click("#content button:has-text('Save settings')");
      await page.locator("#content .status.ok", { hasText: "Crawl settings saved." }).waitFor();
      const got = await (await strict.call(`/api/admin/sites/${site.id}`, {
        headers: { Authorization: `Bearer ${site.adminKey}` },
      })).json();
      assert.equal(got.site.settings.recrawl, "weekly");
      assert.deepEqual(got.site.settings.exclude, ["/drafts/**"]);
      await ctx.close();
    });

    await t.step(
      "a crawl shows true progress, a growing page count, and its failed and skipped URLs",
      async () => {
        const site = await makeSite(app.call, { plan: "pro", pages: BY_HAND });
        const [ctx, page] = await dashboard(app, site.adminKey);
        await page.fill("#crawl-url", fixture.origin + "/");
        await page.fill("#crawl-max", "500");
        await page.click("#content button[type=submit]:has-text('Crawl now')");
        await page.waitForSelector("[data-crawl-status=running]");
        // During the crawl: progress counts only pages the crawl may store, and the
        // page list's count moves.
        await page.waitForFunction(
          () => {
            const text = document.querySelector("[data-crawl-progress]")?.textContent ?? "";
            const m = /^(\d+) of (\d+) pages done so far/.exec(text);
            const count = /\((\d+)\)/.exec(
              document.querySelector("[data-pages-count]")?.textContent ?? "",
            );
            return m && Number(m[1]) >= 5 && Number(m[2]) >= 30 && count && Number(count[1]) >= 4;
          },
          undefined,
          { timeout: 20_000 },
        );
        const during = await page.locator("[data-crawl-progress]").textContent() ?? "";
        const [, done, total] = /^(\d+) of (\d+)/.exec(during)!.map(Number);
        assert.ok(done < total, during);
        // 35 may be stored: the start page, about, 30 guides, 3 broken links (robots and
        // off-site links are not counted). The bar is never ahead of the pages done.
        assert.ok(total <= 36, during);
        await page.screenshot({ path: new URL("crawl-running.png", SCREENSHOTS).pathname });

        await page.waitForSelector("[data-crawl-status=done]", { timeout: 30_000 });
        assert.match(
          await page.locator("[data-crawl-progress]").textContent() ?? "",
          /^35 of 35 pages done · 32 stored/,
        );
        // The 32 crawled and the one added by hand.
        await page.locator("[data-pages-count]", { hasText: "(33)" }).waitFor();
        assert.equal(await page.locator(".crawl progress").getAttribute("value"), "35");

        // Failed URLs grouped by reason, in words: the three broken links are "Not found".
        const failedGroups = page.locator("[data-crawl-list=failed] li.crawl-group");
        assert.equal(await failedGroups.count(), 1);
        assert.match(await failedGroups.first().textContent() ?? "", /Not found\s*3.*do not exist/);
        await failedGroups.first().locator("button:has-text('Show URLs')").click();
        const failed = failedGroups.first().locator("ul li");
        await failed.nth(2).waitFor();
        assert.match(await failed.nth(0).textContent() ?? "", /\/gone\/\d/);
        // Skipped: the 60 links off the site are one group, largest first, saying what to do;
        // its URLs come 10 at a time.
        const skippedGroups = page.locator("[data-crawl-list=skipped] li.crawl-group");
        assert.equal(await skippedGroups.count(), 2);
        const offSite = skippedGroups.nth(0);
        assert.match(
          await offSite.textContent() ?? "",
          /Links to other sites\s*60.*add it as a site of its own/,
        );
        assert.match(await skippedGroups.nth(1).textContent() ?? "", /robots\.txt\s*1/);
        await offSite.locator("button:has-text('Show URLs')").click();
        const offUrls = offSite.locator("ul li");
        await offUrls.nth(9).waitFor();
        assert.equal(await offUrls.count(), 10);
        await offSite.locator("button:has-text('Show more')").click();
        await offUrls.nth(19).waitFor();
        assert.equal(await offUrls.count(), 20);
        assert.ok((await offUrls.allTextContents()).every((x) => /elsewhere-\d+\.example/.test(x)));
        // No reason code is ever shown.
        const shown = await page.locator(".crawl").textContent() ?? "";
        assert.doesNotMatch(shown, /off_site|http_404|\brobots\b(?!\.txt)/);
        await page.screenshot({
          path: new URL("crawl-done-lists.png", SCREENSHOTS).pathname,
          fullPage: true,
        });
        await ctx.close();
      },
    );

    await t.step(
      "a failed crawl never shows a full bar, says why in words, and a URL without a scheme gets https://",
      async () => {
        const site = await makeSite(app.call, { plan: "pro", pages: BY_HAND });
        const [ctx, page] = await dashboard(app, site.adminKey);
        // The sitemap answers 404: the crawl fails, its bar stays empty.
        await page.fill("#crawl-url", fixture.origin + "/sitemap.xml");
        await page.click("#content button[type=submit]:has-text('Crawl now')");
        await page.waitForSelector("[data-crawl-status=failed]", { timeout: 20_000 });
        const bar = page.locator(".crawl progress");
        assert.equal(await bar.getAttribute("value"), "0");
        assert.equal(await bar.getAttribute("class"), "failed");
        const said = await page.locator(".crawl").textContent() ?? "";
        assert.match(said, /Crawl failed.*does not exist \(HTTP 404\)/);
        assert.doesNotMatch(said, /http_\d/);
        for (const width of [1280, 390]) {
          await page.setViewportSize({ width, height: 1400 });
          await page.locator(".crawl").screenshot({
            path: new URL(`crawl-failed-${width}.png`, SCREENSHOTS).pathname,
          });
        }
        await page.setViewportSize({ width: 1280, height: 1400 });

        // Typed without a scheme: https:// is added in the field, and said beside it.
        const bare = `127.0.0.1:${fixture.port}/`;
        await page.fill("#crawl-url", bare);
        await page.click("#content button[type=submit]:has-text('Crawl now')");
        await page.waitForSelector("[data-crawl-scheme]");
        assert.equal(await page.inputValue("#crawl-url"), `https://${bare}`);
        assert.match(
          await page.locator("[data-crawl-scheme]").textContent() ?? "",
          /https:\/\/ was added/,
        );
        await page.locator("[data-crawl-status=failed] .path", { hasText: `https://${bare}` })
          .waitFor({ timeout: 20_000 });
        await page.locator("form.crawl-form").screenshot({
          path: new URL("crawl-scheme-added.png", SCREENSHOTS).pathname,
        });
        await ctx.close();
      },
    );
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await fixture.close();
    await app.close();
    await strict.close();
  }
});
