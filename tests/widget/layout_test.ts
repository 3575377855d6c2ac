/**
 * widget.js, results.js and the islands results page at 390 and 1280 px, on a light and on a
 * warm dark host page, in headless Chromium: nothing wider than the viewport, buttons inside
 * their panel, touch targets of 44 px, a dropdown as wide as it needs, the host's own colours.
 * Screenshots land in tests/.screenshots/layout-*.png.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import {
  BAR,
  browserSuite,
  CHROMIUM_ARGS,
  loadPlaywright,
  makeSite,
  RESULTS,
  resultsTag,
  SCREENSHOTS,
  serveApp,
  serveHost,
  widgetTag,
} from "./browser_helpers.ts";

const CODE = "Company.objects.filter(num_employees__gt=F('num_chairs'))";
const PAGES = [
  {
    url: "/docs/models/expressions",
    title: "Query expressions",
    body: `Filter on another field with F: ${CODE} compares two fields of one model.`,
  },
  { url: "/docs/topics/signals", title: "Signals", body: "Signals let senders notify receivers." },
  { url: "/docs/ref/signals", title: "Signals", body: "Reference of the built-in signals." },
  ...Array.from({ length: 12 }, (_, i) => ({
    url: `/docs/filters/${i}`,
    title: `Filtering querysets, part ${i}`,
    body: `Filter querysets with keyword arguments, part ${i}.`,
  })),
];

/** The host pages: light, and a warm dark one that paints its own colours. */
const HOSTS = {
  light: { bg: "rgb(255, 255, 255)", fg: "rgb(17, 17, 17)" },
  dark: { bg: "rgb(43, 33, 24)", fg: "rgb(241, 230, 216)" },
} as const;

type Box = { x: number; y: number; width: number; height: number };
const inside = (a: Box, b: Box) =>
  a.x >= b.x - 0.5 && a.y >= b.y - 0.5 && a.x + a.width <= b.x + b.width + 0.5 &&
  a.y + a.height <= b.y + b.height + 0.5;

browserSuite("browser - right at 390 and 1280 px, light and dark", async (t, executablePath) => {
  const api = await serveApp();
  const host = serveHost();
  const { chromium } = await loadPlaywright();
  const browser: Browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  await Deno.mkdir(SCREENSHOTS, { recursive: true });
  const overflow = (page: Page) =>
    page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
  const box = async (page: Page, selector: string) => {
    const b = await page.locator(selector).first().boundingBox({ timeout: 5_000 });
    assert.ok(b, `${selector} is drawn`);
    return b;
  };
  try {
    const site = await makeSite(api.call, {
      plan: "pro",
      pages: PAGES,
      settings: { aiSummaries: true },
    });
    for (const [scheme, c] of Object.entries(HOSTS)) {
      host.pages.set(`/${scheme}/search`, {
        head: `<style>body{margin:0;background:${c.bg};color:${c.fg};font:16px Georgia,serif}` +
          `header{display:flex;justify-content:space-between;align-items:center;padding:8px 16px}` +
          `header div{width:255px}main{padding:16px;max-width:760px}</style>` +
          widgetTag(api.origin, site.publicKey, { "data-live": "true" }) +
          resultsTag(api.origin, site.publicKey, { "data-summary": "true" }),
        body: `<header><b>Docs</b><div data-site-search></div></header>` +
          `<main><h1>Search</h1><div data-site-search-results></div></main>`,
      });
      host.pages.set(`/${scheme}/button`, {
        head: `<style>body{margin:0;background:${c.bg};color:${c.fg}}</style>` +
          widgetTag(api.origin, site.publicKey, { "data-live": "true" }),
        body: `<main><h1>Docs</h1><p>A page with the floating search button.</p></main>`,
      });
    }

    for (const width of [390, 1280]) {
      for (const scheme of ["light", "dark"] as const) {
        await t.step(`the scripts at ${width} px on a ${scheme} host page`, async () => {
          const ctx = await browser.newContext({ viewport: { width, height: 900 } });
          const page = await ctx.newPage();
          const errors: string[] = [];
          page.on("pageerror", (e) => errors.push(String(e)));
          await page.goto(`${host.origin}/${scheme}/search?q=filter%20fields`);
          await page.locator(`${RESULTS} .hit`).first().waitFor();
          await page.locator(`${RESULTS} .atext:not(.busy)`).first().waitFor();
          assert.ok((await overflow(page)) <= 0, `the page scrolls sideways at ${width} px`);
          // On a phone the answer starts folded; Show more opens it (thumbs and all).
          const folded = await page.locator(`${RESULTS} button.more`).isVisible();
          assert.equal(folded && width > 600, false, "folded only on a phone");
          const more = folded ? [`${RESULTS} button.more`] : [];
          if (folded) await page.locator(more[0]).click();
          // The results page's buttons sit inside its panel, and are big enough to touch.
          const panel = await box(page, `${RESULTS} .rp`);
          const thumbs = (await page.locator(`${RESULTS} .fb .btn`).count()) > 0;
          const buttons = [`${RESULTS} .rform .btn`, ...more];
          for (const sel of [...buttons, ...thumbs ? [`${RESULTS} .fb .btn`] : []]) {
            const b = await box(page, sel);
            assert.ok(inside(b, panel), `${sel} leaves its panel at ${width} px`);
            assert.ok(b.height >= 44 && b.width >= 44, `${sel} is ${b.width}×${b.height}`);
            assert.ok(b.x + b.width <= width, `${sel} ends past the screen`);
          }
          for (const a of await page.locator(`${RESULTS} .pager a`).all()) {
            const b = (await a.boundingBox())!;
            assert.ok(b.height >= 44 && b.width >= 44, `a page link is ${b.width}×${b.height}`);
          }
          // Code in a snippet wraps inside its own box: no hit reaches past the screen.
          await page.locator(`${RESULTS} .hit`, { hasText: "num_employees" }).waitFor();
          for (const hit of await page.locator(`${RESULTS} .hit`).all()) {
            const b = (await hit.boundingBox())!;
            assert.ok(b.x + b.width <= width, `a hit ends at ${b.x + b.width} px`);
          }
          // The auto theme takes the host's own background and text colours.
          const colours = await page.locator(`${RESULTS} .rform .field`).evaluate((e) => ({
            bg: getComputedStyle(e).backgroundColor,
            fg: getComputedStyle(e.querySelector("input")!).color,
          }));
          assert.deepEqual(colours, { bg: HOSTS[scheme].bg, fg: HOSTS[scheme].fg });
          await page.screenshot({
            path: new URL(`layout-results-${scheme}-${width}.png`, SCREENSHOTS).pathname,
            fullPage: true,
          });

          // The live bar's dropdown: min(600 px, the viewport) wide, on screen, 44 px options.
          await page.locator(`${BAR} input`).pressSequentially("signals", { delay: 30 });
          await page.locator(`${BAR} [role=listbox][data-query=signals]`).waitFor();
          const pop = await box(page, `${BAR} .pop`);
          assert.ok(pop.x >= 0 && pop.x + pop.width <= width, `dropdown ${JSON.stringify(pop)}`);
          assert.ok(pop.width >= Math.min(600, width - 32) - 1, `dropdown is ${pop.width} px`);
          for (const o of await page.locator(`${BAR} [role=option]`).all()) {
            assert.ok((await o.boundingBox())!.height >= 44, "an option is under 44 px tall");
          }
          // Two pages called "Signals" are told apart by their paths.
          const paths = await page.locator(`${BAR} [role=option] .p`).allTextContents();
          assert.deepEqual(paths.sort(), ["/docs/ref/signals", "/docs/topics/signals"]);
          assert.ok((await overflow(page)) <= 0, "the open dropdown widens the page");
          await page.screenshot({
            path: new URL(`layout-dropdown-${scheme}-${width}.png`, SCREENSHOTS).pathname,
          });
          await ctx.close();
          assert.deepEqual(errors, []);
        });

        await t.step(`the search dialog at ${width} px on a ${scheme} host page`, async () => {
          const ctx = await browser.newContext({ viewport: { width, height: 800 } });
          const page = await ctx.newPage();
          await page.goto(`${host.origin}/${scheme}/button`);
          await page.locator("[data-sitesearch=button] .fab").click();
          const input = page.locator("[data-sitesearch=button] dialog input");
          await input.pressSequentially("signals", { delay: 30 });
          await page.locator("[data-sitesearch=button] [role=listbox][data-query=signals]")
            .waitFor();
          const dialog = await box(page, "[data-sitesearch=button] dialog");
          assert.ok(dialog.x >= 0 && dialog.x + dialog.width <= width, "the dialog is on screen");
          for (const sel of ["[data-sitesearch=button] .close", "[data-sitesearch=button] .fab"]) {
            const b = await box(page, sel);
            assert.ok(b.height >= 44 && b.width >= 44, `${sel} is ${b.width}×${b.height}`);
          }
          for (const o of await page.locator("[data-sitesearch=button] [role=option]").all()) {
            const b = (await o.boundingBox())!;
            assert.ok(b.height >= 44 && b.x + b.width <= width, `an option: ${JSON.stringify(b)}`);
          }
          assert.ok((await overflow(page)) <= 0);
          await page.screenshot({
            path: new URL(`layout-dialog-${scheme}-${width}.png`, SCREENSHOTS).pathname,
          });
          await ctx.close();
        });

        await t.step(`the islands results page at ${width} px, ${scheme}`, async () => {
          const ctx = await browser.newContext({
            viewport: { width, height: 900 },
            colorScheme: scheme,
          });
          const page = await ctx.newPage();
          await page.goto(`${api.origin}/search-results?key=${site.publicKey}&q=filter`);
          await page.waitForSelector("html[data-islands=hydrated]");
          await page.locator(".answer .turn[aria-busy=false]").waitFor();
          assert.ok((await overflow(page)) <= 0, `the page scrolls sideways at ${width} px`);
          const form = await box(page, "form.searchbox");
          const button = await box(page, "form.searchbox .button");
          assert.ok(inside(button, form), "the Search button leaves its form");
          assert.ok(button.height >= 44, `the Search button is ${button.height} px tall`);
          await page.locator("#search-q").fill("");
          await page.locator("#search-q").pressSequentially("signals", { delay: 30 });
          await page.locator("#search-suggestions[data-query=signals]").waitFor();
          for (const o of await page.locator("#search-suggestions [role=option]").all()) {
            const b = (await o.boundingBox())!;
            assert.ok(b.height >= 44 && b.height < 90, `a suggestion is ${b.height} px tall`);
            assert.ok(b.x + b.width <= width);
          }
          assert.ok((await overflow(page)) <= 0);
          await page.screenshot({
            path: new URL(`layout-islands-${scheme}-${width}.png`, SCREENSHOTS).pathname,
            fullPage: true,
          });
          // One Escape closes the list and keeps the words; the second clears them.
          await page.locator("#search-q").press("Escape");
          assert.equal(await page.locator("#search-q").inputValue(), "signals");
          await page.locator("#search-q").press("Escape");
          assert.equal(await page.locator("#search-q").inputValue(), "");
          await ctx.close();
        });
      }
    }
    await t.step("a long query without spaces wraps in the count line at 390 px", async () => {
      const ctx = await browser.newContext({ viewport: { width: 390, height: 900 } });
      const page = await ctx.newPage();
      const q = encodeURIComponent(CODE);
      // The scripts' results page on a host page, then the hosted one.
      await page.goto(`${host.origin}/light/search?q=${q}`);
      await page.locator(`${RESULTS} .count`, { hasText: "num_employees" }).waitFor();
      assert.ok((await overflow(page)) <= 0, "the scripts' count line widens the page");
      await page.goto(`${api.origin}/search-results?key=${site.publicKey}&q=${q}`);
      await page.waitForSelector("html[data-islands=hydrated]");
      await page.locator(".results .status", { hasText: "num_employees" }).waitFor();
      assert.ok((await overflow(page)) <= 0, "the hosted count line widens the page");
      await page.screenshot({
        path: new URL("layout-long-query-390.png", SCREENSHOTS).pathname,
        fullPage: true,
      });
      await ctx.close();
    });
  } finally {
    await browser.close();
    await host.close();
    await api.close();
  }
});
