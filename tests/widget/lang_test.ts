/**
 * The visitor's language, in headless Chromium: widget.js and results.js on a host page whose
 * `<html lang>` names it (or `data-lang`, or neither: English), and the islands results page
 * with `?lang=`. Nothing English may show through; Arabic lays out right to left.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { englishLeaks } from "../i18n/leaks.ts";
import { TABLES } from "../../widget/i18n/all.ts";
import { type Lang, LANGS } from "../../widget/i18n/index.ts";
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

/** Site content with no word of any English message in it, so a leak is ours. */
const PAGES = Array.from({ length: 14 }, (_, i) => ({
  url: `/zephyr/${i}`,
  title: `Zephyr kettle ${i}`,
  body: `Zephyr kettle ${i} holds ${i + 1} litres of water and boils quietly.`,
}));

/** What a visitor reads in a page's drawings: text, and the labels read out or shown. */
async function visibleStrings(page: Page, selector: string): Promise<string> {
  return await page.evaluate((sel) => {
    const out: string[] = [];
    const visit = (el: Element) => {
      if (el.tagName === "SCRIPT" || el.tagName === "STYLE") return;
      for (const a of ["aria-label", "placeholder", "title"]) {
        const v = el.getAttribute(a);
        if (v) out.push(v);
      }
      if (el.shadowRoot) walk(el.shadowRoot);
      for (const n of el.childNodes) {
        if (n.nodeType === Node.TEXT_NODE && n.textContent?.trim()) out.push(n.textContent);
      }
    };
    const walk = (root: ParentNode) => root.querySelectorAll("*").forEach(visit);
    document.querySelectorAll(sel).forEach((host) => {
      visit(host);
      walk(host);
    });
    return out.join("\n");
  }, selector);
}

browserSuite("browser - every visitor string in the site's language", async (t, executablePath) => {
  const api = await serveApp();
  const host = serveHost();
  const { chromium } = await loadPlaywright();
  const browser: Browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  await Deno.mkdir(SCREENSHOTS, { recursive: true });
  try {
    const site = await makeSite(api.call, {
      plan: "pro",
      pages: PAGES,
      settings: { aiSummaries: true },
    });
    // The desktop runs search a site of their own: each site's answers a minute per client IP
    // (SUMMARY_IP_LIMIT_PER_MINUTE) then hold every language's two answers.
    const desktop = await makeSite(api.call, {
      plan: "pro",
      pages: PAGES,
      settings: { aiSummaries: true },
    });
    const headOf = (key: string) =>
      widgetTag(api.origin, key, { "data-live": "true" }) +
      resultsTag(api.origin, key, { "data-summary": "true" });
    const body =
      `<header><div data-site-search></div></header><main><div data-site-search-results></div></main>`;

    const langs = (Deno.env.get("LANGS")?.split(",") as Lang[] | undefined) ?? LANGS;
    // Every language but English (what a leak is, and what layout_test.ts draws at both
    // widths) on a phone; German, Japanese and Arabic on a desktop too.
    const runs = langs.filter((lang) => lang !== "en").flatMap((lang) =>
      (["de", "ja", "ar"].includes(lang) ? [390, 1280] : [390]).map((width) => ({
        lang,
        width,
      }))
    );
    for (const { lang, width } of runs) {
      await t.step(
        `${lang} at ${width} px: the widget, results.js and the islands page draw no English`,
        async () => {
          const { publicKey } = width > 390 ? desktop : site;
          host.pages.set(`/${lang}/search`, { head: headOf(publicKey), body, lang });
          const ctx = await browser.newContext({ viewport: { width, height: 844 } });
          const page = await ctx.newPage();
          const errors: string[] = [];
          page.on("pageerror", (e) => errors.push(String(e)));
          await page.goto(`${host.origin}/${lang}/search?q=zephyr`);
          // results.js: the count, the hits, the pager, the answer with its sources and thumbs.
          await page.locator(`${RESULTS} .hit`).first().waitFor();
          await page.locator(`${RESULTS} .atext:not(.busy)`).first().waitFor();
          // On a phone the answer starts folded: opened, it shows its sources and thumbs too.
          if (width <= 600) await page.locator(`${RESULTS} button.more`).click();
          await page.locator(`${RESULTS} .fb`).waitFor();
          // widget.js: the live bar's list for a typed query.
          await page.locator(`${BAR} input`).pressSequentially("zephyr ket", { delay: 40 });
          await page.locator(`${BAR} [role=listbox][data-query="zephyr ket"]`).waitFor();
          const scripts = await visibleStrings(page, "[data-sitesearch]");
          assert.deepEqual(englishLeaks(scripts, lang), [], `scripts in ${lang}`);
          const dir = await page.locator(`${RESULTS}`).evaluate((h) =>
            h.shadowRoot!.querySelector(".root")!.getAttribute("dir")
          );
          assert.equal(dir, lang === "ar" ? "rtl" : "ltr");
          const wide = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
          assert.ok(wide <= 0, `the host page in ${lang} scrolls sideways by ${wide} px`);
          if (["de", "ja", "ar"].includes(lang)) {
            await page.screenshot({
              path: new URL(`lang-${lang}-scripts-${width}.png`, SCREENSHOTS).pathname,
              fullPage: true,
            });
          }

          // The islands results page, in the language asked for.
          await page.goto(
            `${api.origin}/search-results?key=${publicKey}&q=zephyr&lang=${lang}`,
          );
          await page.waitForSelector("html[data-islands=hydrated]");
          await page.locator(".answer .turn[aria-busy=false]").waitFor();
          await page.locator("#search-q").fill("");
          await page.locator("#search-q").pressSequentially("zephyr ket", { delay: 40 });
          await page.locator(`#search-suggestions[data-query="zephyr ket"]`).waitFor({
            state: "attached",
          });
          const islands = await visibleStrings(
            page,
            ".results-page, .skip, header.top, footer.foot",
          );
          assert.deepEqual(
            englishLeaks(islands, lang as Lang),
            [],
            `islands in ${lang}`,
          );
          assert.equal(await page.getAttribute("html", "lang"), lang);
          assert.equal(await page.getAttribute("html", "dir"), lang === "ar" ? "rtl" : "ltr");
          const wider = await page.evaluate(() =>
            document.documentElement.scrollWidth - innerWidth
          );
          assert.ok(wider <= 0, `the islands page in ${lang} scrolls sideways by ${wider} px`);
          if (["de", "ja", "ar"].includes(lang)) {
            await page.screenshot({
              path: new URL(`lang-${lang}-islands-${width}.png`, SCREENSHOTS).pathname,
              fullPage: true,
            });
          }
          await ctx.close();
          assert.deepEqual(errors, []);
        },
      );
    }

    await t.step("the islands page words a refused key in its language too", async () => {
      const res = await api.call(`/search-results?key=pk_${"x".repeat(24)}&q=zephyr&lang=de`);
      const html = await res.text();
      assert.ok(html.includes(TABLES.de.errUnavailable), "the refusal is in German");
      assert.ok(
        !englishLeaks(html.replace(/<script[^]*?<\/script>/g, ""), "de").includes(
          "Search is not available on this page",
        ),
      );
    });

    await t.step(
      "data-lang on the script tag wins; an unknown language means English",
      async () => {
        host.pages.set("/data-lang", {
          head: widgetTag(api.origin, site.publicKey, { "data-lang": "de" }),
          body: `<header><div data-site-search></div></header>`,
          lang: "fr",
        });
        host.pages.set("/unknown", {
          head: widgetTag(api.origin, site.publicKey),
          body: `<header><div data-site-search></div></header>`,
          lang: "tlh",
        });
        const ctx = await browser.newContext();
        const page = await ctx.newPage();
        await page.goto(`${host.origin}/data-lang`);
        const input = page.locator(`${BAR} input`);
        await input.waitFor();
        assert.equal(await input.getAttribute("placeholder"), TABLES.de.searchPlaceholder);
        await page.goto(`${host.origin}/unknown`);
        await input.waitFor();
        assert.equal(await input.getAttribute("placeholder"), "Search this site…");
        await ctx.close();
      },
    );
    await t.step(
      "a page that names no language gets the site's own, set by its owner",
      async () => {
        const ja = await makeSite(api.call, {
          plan: "pro",
          pages: PAGES,
          settings: { lang: "ja" },
        });
        const info = await api.call("/api/site", { headers: { "X-API-Key": ja.publicKey } });
        assert.equal((await info.json()).lang, "ja");
        host.pages.set("/no-lang", {
          head: widgetTag(api.origin, ja.publicKey),
          body: `<header><div data-site-search></div></header>`,
          lang: "",
        });
        const ctx = await browser.newContext();
        const page = await ctx.newPage();
        await page.goto(`${host.origin}/no-lang`);
        const input = page.locator(`${BAR} input`);
        await input.waitFor();
        // The site's table comes after /api/site answers: wait for it to be drawn.
        for (let i = 0; i < 50; i++) {
          if (await input.getAttribute("placeholder") === TABLES.ja.searchPlaceholder) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        assert.equal(await input.getAttribute("placeholder"), TABLES.ja.searchPlaceholder);
        await ctx.close();
        // The islands results page, with no ?lang=: the site's language too.
        const res = await api.call(`/search-results?key=${ja.publicKey}&q=zephyr`);
        const html = await res.text();
        assert.match(html, new RegExp(`<title>[^<]*${TABLES.ja.search}`));
        assert.match(html, /<html[^>]* lang="ja"/);
      },
    );
  } finally {
    await browser.close();
    await host.close();
    await api.close();
  }
});
