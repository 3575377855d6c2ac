/**
 * A new owner's first hour in headless Chromium, against the real app on loopback and a small
 * site served on 127.0.0.1 to crawl: the empty site opens on its first steps, each step is marked
 * done as the owner does it, "Open my results page" opens this site's own results page, and at
 * 390 px nothing is wider than the screen, the pages list grows with "Show more" (no row cut off)
 * and its paths wrap only after a slash.
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
  SCREENSHOTS,
  sessionCookie,
} from "../widget/browser_helpers.ts";

/** Paths of the kind an owner's site has: folders, file names with dots, a guide per topic. */
const PATHS = [
  "/changes.html",
  "/guides/loop",
  "/docs/getting-started/install.html",
  "/support/descaling-your-kettle",
  ...Array.from({ length: 26 }, (_, i) => `/kettles/gooseneck-model-${i + 1}.html`),
];

/** Line breaks inside each `.path` that do not follow a slash, as "before|after" snippets. */
function midWordBreaks(page: Page, selector: string): Promise<string[]> {
  return page.locator(selector).evaluateAll((els) =>
    els.flatMap((el) => {
      const bad: string[] = [];
      const text = el.textContent ?? "";
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      let prevTop: number | null = null;
      let prevChar = "";
      let offset = 0;
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const s = node.textContent ?? "";
        for (let i = 0; i < s.length; i++) {
          const range = document.createRange();
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const top = range.getClientRects()[0]?.top;
          if (top === undefined) continue;
          if (prevTop !== null && top > prevTop + 2 && prevChar !== "/" && !/\s/.test(prevChar)) {
            bad.push(`${text.slice(0, offset + i)}|${text.slice(offset + i)}`);
          }
          prevTop = top;
          prevChar = s[i];
        }
        offset += s.length;
      }
      return bad;
    })
  );
}

browserSuite("browser - a new owner's first steps", async (t, executablePath) => {
  const kv = await Deno.openKv(":memory:");
  const { app, services } = createApp({
    kv,
    operatorToken: OPERATOR,
    log: () => {},
    crawl: { allowLoopback: true, delayMs: 20 },
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const call: typeof fetch = (path, init) => fetch(origin + String(path), init);
  const fixture = serveSite(
    new Map([
      ["/robots.txt", { headers: { "Content-Type": "text/plain" }, body: "User-agent: *\n" }],
      ["/about", html("About Zephyr", "<p>Quiet kettles since 1999.</p>")],
      [
        "/",
        html(
          "Zephyr home",
          `<p>Kettles.</p>${PATHS.map((p) => `<a href="${p}">${p}</a>`).join(" ")}`,
        ),
      ],
      ...PATHS.map((p, i) =>
        [
          p,
          html(`Zephyr ${p.split("/").at(-1)} ${i}`, `<p>Zephyr kettle page ${i}: ${p}.</p>`),
        ] as const
      ),
    ]),
  );
  const { chromium } = await loadPlaywright();
  const browser: Browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  await Deno.mkdir(SCREENSHOTS, { recursive: true });
  const shot = (name: string) => new URL(`first-run-${name}.png`, SCREENSHOTS).pathname;
  const errors: string[] = [];

  const created = await (await call("/api/admin/sites", {
    method: "POST",
    headers: { Authorization: `Bearer ${OPERATOR}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "Zephyr Kettles", plan: "business" }),
  })).json();
  const site = { id: created.site.id, publicKey: created.publicKey, adminKey: created.adminKey };

  /** A context signed in with the site's admin key, its dashboard open. */
  const dashboard = async (
    width: number,
    ctx?: BrowserContext,
  ): Promise<[BrowserContext, Page]> => {
    const value = await sessionCookie(call, origin, site.adminKey);
    ctx ??= await browser.newContext({ viewport: { width, height: 900 } });
    ctx.on("page", (p) => p.on("pageerror", (e) => errors.push(String(e))));
    await ctx.addCookies([{ name: "sitesearch_session", value, url: origin }]);
    const page = await ctx.newPage();
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(origin + "/dashboard");
    await page.waitForSelector("html[data-islands=hydrated]");
    return [ctx, page];
  };
  const stepDone = (page: Page, step: string) =>
    page.locator(`#first-run [data-step=${step}]`).getAttribute("data-done");
  const overflow = (page: Page) =>
    page.evaluate(() => document.scrollingElement!.scrollWidth - innerWidth);

  try {
    assert.deepEqual((await staleBundles()).map((b) => b.out), [], "run deno task build");
    const [ctx, page] = await dashboard(1280);
    await ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin });

    await t.step("a new, empty site opens on its three first steps, crawl first", async () => {
      const first = page.locator(".dash-grid > .island").first();
      assert.equal(await first.getAttribute("data-island"), "FirstRun");
      const steps = page.locator("#first-run [data-step]");
      assert.deepEqual(
        await steps.evaluateAll((els) => els.map((e) => e.getAttribute("data-step"))),
        ["crawl", "try", "embed"],
      );
      for (const step of ["crawl", "try", "embed"]) {
        assert.equal(await stepDone(page, step), "false");
      }
      assert.equal(
        await page.locator("#first-run [data-step=crawl]").getAttribute("aria-current"),
        "step",
      );
      // The crawl form and the code are in the steps, once each on the page.
      assert.equal(await page.locator("#crawl-url").count(), 1);
      assert.equal(await page.locator("#first-run #crawl-url").count(), 1);
      assert.equal(await page.locator("[data-snippet=widget]").count(), 1);
      assert.equal(await page.locator("#first-run [data-snippet=widget]").count(), 1);
      await page.screenshot({ path: shot("empty-1280"), fullPage: true });
    });

    await t.step(
      "crawling the site marks the first step done and fills the pages list",
      async () => {
        await page.fill("#first-run #crawl-url", fixture.origin + "/");
        await page.click("#first-run button[type=submit]:has-text('Crawl now')");
        await page.waitForSelector("#first-run [data-crawl-status=done]", { timeout: 30_000 });
        await page.waitForSelector("#first-run [data-step=crawl][data-done=true]", {
          timeout: 10_000,
        });
        assert.match(
          await page.locator("#first-run [data-step=crawl] .step-note").textContent() ?? "",
          new RegExp(`^${PATHS.length + 2} pages in the index`),
        );
        await page.locator("#content ul[aria-label=Pages] li", { hasText: "/changes.html" })
          .waitFor();
        assert.equal(
          await page.locator("#first-run [data-step=try]").getAttribute("aria-current"),
          "step",
          "trying it is next",
        );
      },
    );

    await t.step("'Open my results page' opens this site's own results page", async () => {
      const link = page.locator("#first-run [data-step=try] [data-open-results]");
      const [results] = await Promise.all([page.waitForEvent("popup"), link.click()]);
      await results.waitForLoadState();
      const url = new URL(results.url());
      assert.equal(url.origin + url.pathname, `${origin}/search-results`);
      assert.equal(url.searchParams.get("key"), site.publicKey);
      assert.match(await results.locator("h1").textContent() ?? "", /Zephyr Kettles/);
      await results.close();
    });

    await t.step(
      "a search from the Try it box shows this site's pages and marks it done",
      async () => {
        assert.equal(await stepDone(page, "try"), "false", "opening the page searched nothing");
        await page.fill("#try-q", "gooseneck");
        const [results] = await Promise.all([
          page.waitForEvent("popup"),
          page.click("#first-run form.try button[type=submit]"),
        ]);
        await results.waitForLoadState();
        assert.equal(new URL(results.url()).searchParams.get("q"), "gooseneck");
        assert.match(await results.locator(".hit").first().textContent() ?? "", /gooseneck-model/);
        await results.close();
        await page.waitForSelector("#first-run [data-step=try][data-done=true]", {
          timeout: 10_000,
        });
        assert.equal(
          await page.locator("#first-run [data-step=embed]").getAttribute("aria-current"),
          "step",
        );
      },
    );

    await t.step(
      "copying the embed code marks the last step done, and a reload keeps it",
      async () => {
        await page.locator("#first-run [data-step=embed] .embed-snippet button").first().click();
        await page.waitForSelector("#first-run [data-step=embed][data-done=true]");
        const copied = await page.evaluate(() => navigator.clipboard.readText());
        assert.match(copied, new RegExp(`data-key="${site.publicKey}"`));
        await page.locator("#first-run").screenshot({ path: shot("steps-done-1280") });
        // With pages, the dashboard opens as before; the steps stay a click away, all done.
        await page.reload();
        await page.waitForSelector("html[data-islands=hydrated]");
        const fold = page.locator("#first-run details.steps-fold");
        assert.equal(await fold.getAttribute("open"), null, "folded");
        assert.match(await fold.locator("summary").textContent() ?? "", /All three steps done/);
        for (const step of ["crawl", "try", "embed"]) {
          assert.equal(await stepDone(page, step), "true");
        }
        assert.equal(
          await page.locator("#content #crawl-url").count(),
          1,
          "the crawl form is back",
        );
        assert.equal(await page.locator("#embed [data-snippet=widget]").count(), 1);
        const head = page.locator("#first-run .panel-head [data-open-results]");
        assert.equal(
          await head.getAttribute("href"),
          `/search-results?key=${site.publicKey}`,
          "the results page is a click away",
        );
        await page.locator("#first-run").screenshot({ path: shot("folded-1280") });
        await ctx.close();
      },
    );

    await t.step(
      "at 390 px nothing is wider than the screen, and lists grow with Show more",
      async () => {
        const [phone, page] = await dashboard(390);
        assert.ok(
          (await overflow(page)) <= 0,
          `the dashboard fits 390 px (${await overflow(page)} over)`,
        );
        const list = page.locator("#content ul[aria-label=Pages]");
        const rows = list.locator("li");
        assert.equal(await rows.count(), 20);
        const box = await list.evaluate((el) => ({
          scroll: el.scrollHeight,
          client: el.clientHeight,
        }));
        assert.ok(box.scroll <= box.client + 1, "the list is no scroll box of its own");
        const last = rows.last();
        await last.scrollIntoViewIfNeeded();
        const [lastBox, listBox] = [await last.boundingBox(), await list.boundingBox()];
        assert.ok(lastBox && listBox);
        assert.ok(
          lastBox.y + lastBox.height <= listBox.y + listBox.height + 1,
          "the last row shows whole",
        );
        await page.locator("#content").screenshot({ path: shot("content-390") });
        await page.click("#content [data-show-more]");
        await page.waitForFunction(() =>
          document.querySelectorAll("#content ul[aria-label=Pages] li").length === 32
        );
        assert.equal(await page.locator("#content [data-show-more]").count(), 0, "all shown");
        assert.deepEqual(await midWordBreaks(page, "#content ul[aria-label=Pages] .path"), []);
        // The embed code wraps rather than scrolling sideways.
        for (const pre of await page.locator("#embed pre").all()) {
          const { scroll, client } = await pre.evaluate((el) => ({
            scroll: el.scrollWidth,
            client: el.clientWidth,
          }));
          assert.ok(scroll <= client, "no sideways scrolling in the embed code");
        }
        assert.deepEqual(await midWordBreaks(page, "#embed pre"), []);
        await page.locator("#embed").screenshot({ path: shot("embed-390") });
        assert.ok((await overflow(page)) <= 0);
        // Nor does any box of the owner's panels scroll sideways inside the page.
        const sideways = await page.locator(
          "#first-run, #usage, #settings, #keys, #content, #embed",
        )
          .evaluateAll((panels) =>
            panels.flatMap((panel) =>
              [panel, ...panel.querySelectorAll("*")].filter((el) =>
                el.scrollWidth > el.clientWidth + 1 &&
                ["auto", "scroll"].includes(getComputedStyle(el).overflowX)
              ).map((el) => `${panel.id}: ${el.tagName.toLowerCase()}.${el.className}`)
            )
          );
        assert.deepEqual(sideways, []);
        for (const id of ["first-run", "usage", "settings", "keys"]) {
          await page.locator(`#${id}`).screenshot({ path: shot(`${id}-390`) });
        }
        await phone.close();
      },
    );

    await t.step(
      "at 390 px a new site's steps and the operator's list fit the screen",
      async () => {
        const fresh = await (await call("/api/admin/sites", {
          method: "POST",
          headers: { Authorization: `Bearer ${OPERATOR}`, "Content-Type": "application/json" },
          body: JSON.stringify({ name: "Another new site", plan: "free" }),
        })).json();
        const saved = { ...site };
        Object.assign(site, { adminKey: fresh.adminKey, id: fresh.site.id });
        const [phone, page] = await dashboard(390);
        Object.assign(site, saved);
        assert.equal(await stepDone(page, "crawl"), "false");
        assert.ok(
          (await overflow(page)) <= 0,
          `the steps fit 390 px (${await overflow(page)} over)`,
        );
        assert.deepEqual(await midWordBreaks(page, "#first-run pre"), []);
        await page.screenshot({ path: shot("empty-390"), fullPage: true });
        await page.locator("#first-run").screenshot({ path: shot("steps-390") });
        await phone.close();

        const ops = await browser.newContext({ viewport: { width: 390, height: 900 } });
        const value = await sessionCookie(call, origin, OPERATOR);
        await ops.addCookies([{ name: "sitesearch_session", value, url: origin }]);
        const list = await ops.newPage();
        list.on("pageerror", (e) => errors.push(String(e)));
        await list.goto(origin + "/dashboard");
        await list.waitForSelector("html[data-islands=hydrated]");
        assert.ok(
          (await overflow(list)) <= 0,
          `the site list fits 390 px (${await overflow(list)} over)`,
        );
        await list.screenshot({ path: shot("sites-390"), fullPage: true });
        await ops.close();
      },
    );

    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await server.shutdown();
    await fixture.close();
    services.analytics.discard();
    kv.close();
  }
});
