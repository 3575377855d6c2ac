/**
 * Live search as a visitor types, and the widget's manners, in headless Chromium on a host page
 * of another origin. Searches are counted where they count: on the server.
 */
import assert from "node:assert/strict";
import type { Browser, BrowserContextOptions, Page, Route } from "playwright-core";
import {
  BAR,
  browserSuite,
  CHROMIUM_ARGS,
  loadPlaywright,
  makeSite,
  OPTION,
  RESULTS,
  resultsTag,
  SCREENSHOTS,
  serveApp,
  serveHost,
  widgetTag,
} from "./browser_helpers.ts";
import { admin, OPERATOR } from "../helpers.ts";

/** 47 characters, typed at 150 ms a key. */
const QUESTION = "how long does shipping to germany usually take?";

const PAGES = [
  {
    url: "/shipping/germany",
    title: "Shipping to Germany",
    body: "Shipping to Germany usually takes two to three working days.",
  },
  {
    url: "/shipping/costs",
    title: "Shipping costs",
    body: "Shipping costs five euros in Europe, free above fifty euros.",
  },
  {
    url: "/shipping/time",
    title: "How long does delivery take?",
    body: "Most orders leave the roastery the same day and take two days.",
  },
  {
    url: "/beans/decaf",
    title: "Decaf beans",
    body: "Our decaf is made with the Swiss water process.",
  },
  {
    url: "/beans/espresso",
    title: "Espresso roast",
    body: "A dark espresso roast with notes of chocolate.",
  },
  {
    url: "/guides/grinder",
    title: "Choosing a grinder",
    body: "A burr grinder keeps the grind even for espresso and filter.",
  },
];

browserSuite("browser - live search and widget manners", async (t, executablePath) => {
  const api = await serveApp();
  const host = serveHost();
  const { chromium } = await loadPlaywright();
  const browser: Browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  await Deno.mkdir(SCREENSHOTS, { recursive: true });
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: new URL(name, SCREENSHOTS).pathname });
  const open = async (path: string, o: BrowserContextOptions = {}) => {
    const context = await browser.newContext({ viewport: { width: 1100, height: 760 }, ...o });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(host.origin + path);
    return {
      page,
      done: async () => {
        await context.close();
        assert.deepEqual(errors, []);
      },
    };
  };
  const usage = async (site: { id: string; adminKey: string }) =>
    (await (await api.call(`/api/admin/sites/${site.id}/usage`, admin(site.adminKey))).json())
      .month.used as number;

  try {
    const free = await makeSite(api.call, { plan: "free", pages: PAGES });
    const widget = widgetTag(api.origin, free.publicKey, {
      "data-live": "true",
      "data-results-page": "/free/results",
    });
    host.pages.set("/free/live", {
      head: widget,
      body: `<header><div data-site-search></div></header><main><p>A host page.</p></main>`,
    });
    host.pages.set("/free/button", { head: widget, body: `<main><p>No bar here.</p></main>` });
    // A results page with no bar of its own, as many site builders make it.
    host.pages.set("/free/results", {
      head: widget + resultsTag(api.origin, free.publicKey, { "data-summary": "true" }),
      body: `<main><h1>Search results</h1><div data-site-search-results></div></main>`,
    });
    const searches = (page: Page) => {
      const sent: string[] = [];
      page.on("request", (r) => {
        if (r.url().includes("/api/search")) sent.push(new URL(r.url()).searchParams.get("q")!);
      });
      return sent;
    };
    const fieldBg = (page: Page, selector = `${BAR} .field`) =>
      page.locator(selector).first().evaluate((e) => getComputedStyle(e).backgroundColor);
    const LIGHT_BG = "rgb(255, 255, 255)", DARK_BG = "rgb(22, 27, 34)";

    const pro = await makeSite(api.call, { plan: "pro", pages: PAGES });
    host.pages.set("/pro/live", {
      head: widgetTag(api.origin, pro.publicKey, { "data-live": "true" }),
      body: `<header><div data-site-search></div></header><main><p>A host page.</p></main>`,
    });
    const typed = [
      { site: free, path: "/free/live", q: QUESTION, shot: "live-question.png" },
      { site: pro, path: "/pro/live", q: "does shipping to germany cost extra?", shot: null },
    ];
    for (const { site, path, q, shot: name } of typed) {
      await t.step(
        `a ${q.length}-character question typed at 150 ms a key costs ≤ 3 searches`,
        async () => {
          const w = await open(path);
          const sent = searches(w.page);
          const before = await usage(site);
          const input = w.page.locator(`${BAR} input`);
          await input.click();
          await input.pressSequentially(q, { delay: 150 });
          // The list shows the server's answer for the complete question, not a narrowed one.
          await w.page.locator(`${BAR} [role=listbox]`).and(w.page.locator(`[data-query="${q}"]`))
            .waitFor();
          await w.page.waitForTimeout(500);
          const counted = (await usage(site)) - before;
          console.log(`typed ${q.length} chars: ${sent.length} requests, ${counted} counted`);
          assert.ok(counted <= 3, `${counted} searches counted (${sent.length} requests)`);
          assert.equal(sent.at(-1), q);
          const titles = await w.page.locator(`${OPTION} .t`).allTextContents();
          assert.ok(titles.slice(0, 2).includes("Shipping to Germany"), titles.join(" | "));
          assert.equal(await w.page.locator(`${BAR} .msg`).isVisible(), false, "no busy line");
          if (name) await shot(w.page, name);
          await w.done();
        },
      );
    }

    await t.step(
      "nothing is sent below 3 characters, and a repeat comes from the cache",
      async () => {
        const w = await open("/free/live");
        const sent = searches(w.page);
        const input = w.page.locator(`${BAR} input`);
        await input.pressSequentially("sh", { delay: 150 });
        await w.page.waitForTimeout(700);
        assert.deepEqual(sent, []);
        await input.pressSequentially("ipping", { delay: 150 });
        await w.page.locator(`${BAR} [role=listbox][data-query=shipping]`).waitFor();
        const n = sent.length;
        await input.press("Backspace");
        await input.press("g");
        await w.page.waitForTimeout(700);
        // "shippin" may go out on the way back (instant search), "shipping" never again.
        assert.deepEqual(sent.slice(n).filter((q) => q !== "shippin"), []);
        assert.equal(
          sent.filter((q) => q === "shipping").length,
          1,
          "shipping came from the cache",
        );
        assert.equal(await input.getAttribute("aria-expanded"), "true");
        // Typing on narrows the complete answer for "shipping" at once, before any request;
        // the server's answer for the longer query replaces it after the pause.
        assert.deepEqual((await w.page.locator(`${OPTION} .t`).allTextContents()).sort(), [
          "Shipping costs",
          "Shipping to Germany",
        ]);
        // The server's answers are held until the narrowed list has been seen, so a busy machine
        // whose request goes out and returns quickly cannot replace it before it is read.
        let release!: () => void;
        const held = new Promise<void>((r) => release = r);
        await w.page.route("**/api/search?**", async (route: Route) => {
          await held;
          await route.continue().catch(() => {});
        });
        await input.pressSequentially(" co", { delay: 20 });
        const narrowed = w.page.locator(`${BAR} [role=listbox]:not([data-query]) .t`);
        await narrowed.first().waitFor();
        assert.deepEqual(await narrowed.allTextContents(), ["Shipping costs"]);
        release();
        await w.page.locator(`${BAR} [role=listbox][data-query="shipping co"]`).waitFor();
        await w.page.unroute("**/api/search?**");
        assert.equal(sent.at(-1), "shipping co");
        assert.equal(await w.page.locator(`${OPTION} mark`).first().textContent(), "Shipping");
        await w.done();
      },
    );

    await t.step("Escape closes the list, then clears; Ctrl/Cmd+K selects the text", async () => {
      const w = await open("/free/live");
      const input = w.page.locator(`${BAR} input`);
      await input.pressSequentially("decaf", { delay: 20 });
      await w.page.locator(`${BAR} [role=listbox][data-query=decaf]`).waitFor();
      await input.press("ArrowDown");
      assert.ok(await input.getAttribute("aria-activedescendant"));
      // First Escape: the list closes, the text stays as typed and no result stays chosen.
      await input.press("Escape");
      assert.equal(await input.getAttribute("aria-expanded"), "false");
      assert.equal(await input.getAttribute("aria-activedescendant"), null);
      assert.equal(await input.inputValue(), "decaf");
      // Ctrl+K (Cmd+K on a Mac) selects it, so the next question replaces it.
      for (const combo of ["Control+k", "Meta+k"]) {
        await input.press("End");
        await input.press(combo);
        const sel = await input.evaluate((
          e: HTMLInputElement,
        ) => [e.selectionStart, e.selectionEnd]);
        assert.deepEqual(sel, [0, 5], combo);
      }
      await input.pressSequentially("espresso", { delay: 20 });
      assert.equal(await input.inputValue(), "espresso");
      await w.page.locator(`${BAR} [role=listbox][data-query=espresso]`).waitFor();
      // Escape twice: closed, then cleared.
      await input.press("Escape");
      await input.press("Escape");
      assert.equal(await input.inputValue(), "");
      assert.equal(await input.getAttribute("aria-expanded"), "false");
      // From elsewhere on the page, Ctrl+K brings the visitor back with the text selected.
      await input.pressSequentially("grinder", { delay: 20 });
      await w.page.mouse.click(20, 700); // the page, below the open list
      await w.page.keyboard.press("Control+k");
      assert.equal(await input.evaluate((e) => e.matches(":focus")), true);
      assert.deepEqual(
        await input.evaluate((e: HTMLInputElement) => [e.selectionStart, e.selectionEnd]),
        [0, 7],
      );
      await w.done();
      // On a results page with no bar, the shortcut goes to the page's own box.
      const r = await open("/free/results?q=decaf");
      await r.page.locator(`${RESULTS} .hit`).first().waitFor();
      assert.equal(await r.page.locator("[data-sitesearch=button]").count(), 0);
      await r.page.locator("h1").click();
      await r.page.keyboard.press("Control+k");
      const box = r.page.locator(`${RESULTS} .rform input`);
      assert.equal(await box.evaluate((e) => e.matches(":focus")), true);
      assert.deepEqual(
        await box.evaluate((e: HTMLInputElement) => [e.selectionStart, e.selectionEnd]),
        [0, 5],
      );
      await r.done();
    });

    await t.step("auto theme follows the host page, not the visitor's system", async () => {
      const page = (name: string, style: string) =>
        host.pages.set(`/theme/${name}`, {
          head: widget + (style ? `<style>${style}</style>` : ""),
          body: `<header><div data-site-search></div></header><main><p>Page ${name}.</p></main>`,
        });
      page("plain", "");
      page("white", "body{background:#fff;color:#111}");
      page("both", ":root{color-scheme:light dark}");
      page("black", "body{background:#101014;color:#eee}");
      page("dark-only", ":root{color-scheme:dark}");
      page("oklch", "html{background:oklch(0.2 0.02 260)}");
      // A light page stays light for a visitor in dark mode.
      for (const name of ["plain", "white"]) {
        const w = await open(`/theme/${name}`, { colorScheme: "dark" });
        assert.equal(await fieldBg(w.page), LIGHT_BG, name);
        if (name === "white") {
          await w.page.locator(`${BAR} input`).pressSequentially("decaf", { delay: 20 });
          await w.page.locator(OPTION).first().waitFor();
          await shot(w.page, "theme-light-page-dark-system.png");
        }
        await w.done();
      }
      // A page declaring both schemes lets the system choose.
      for (const scheme of ["dark", "light"] as const) {
        const w = await open("/theme/both", { colorScheme: scheme });
        assert.equal(await fieldBg(w.page), scheme === "dark" ? DARK_BG : LIGHT_BG, scheme);
        await w.done();
      }
      // A dark page gets a dark widget on a light system, in the page's own background where it
      // paints one, and a switch of the page follows.
      const painted: Record<string, string> = {
        black: "rgb(16, 16, 20)",
        "dark-only": DARK_BG,
        oklch: await (async () => {
          const w = await open("/theme/oklch");
          const bg = await w.page.evaluate(() => {
            const c = document.createElement("canvas").getContext("2d")!;
            c.fillStyle = getComputedStyle(document.documentElement).backgroundColor;
            c.fillRect(0, 0, 1, 1);
            const [r, g, b] = c.getImageData(0, 0, 1, 1).data;
            return `rgb(${r}, ${g}, ${b})`;
          });
          await w.done();
          return bg;
        })(),
      };
      for (const name of ["black", "dark-only", "oklch"]) {
        const w = await open(`/theme/${name}`, { colorScheme: "light" });
        assert.equal(await w.page.locator(BAR).getAttribute("data-theme"), "dark", name);
        assert.equal(await fieldBg(w.page), painted[name], name);
        if (name === "black") {
          await w.page.locator(`${BAR} input`).pressSequentially("decaf", { delay: 20 });
          await w.page.locator(OPTION).first().waitFor();
          await shot(w.page, "theme-dark-page-light-system.png");
        }
        await w.done();
      }
      const w = await open("/theme/plain", { colorScheme: "light" });
      await w.page.evaluate(() => (document.body.style.background = "#0b0b0b"));
      await w.page.waitForFunction(
        (bar) => document.querySelector(bar)!.getAttribute("data-theme") === "dark",
        BAR,
      );
      assert.equal(await fieldBg(w.page), "rgb(11, 11, 11)");
      await w.done();
    });

    await t.step(
      "touch: no key hints, and no floating button over the results at 390 px",
      async () => {
        const phone = {
          viewport: { width: 390, height: 844 },
          hasTouch: true,
          isMobile: true,
          deviceScaleFactor: 2,
        };
        const w = await open("/free/button", phone);
        const fab = w.page.locator("[data-sitesearch=button] .fab");
        await fab.waitFor();
        assert.equal(await w.page.locator("[data-sitesearch=button] kbd").count(), 0);
        await shot(w.page, "touch-button.png");
        await fab.tap();
        const dialog = w.page.locator("[data-sitesearch=button] dialog");
        await dialog.waitFor({ state: "visible" });
        assert.equal(await w.page.locator("[data-sitesearch=button] .hint").count(), 0);
        assert.equal(
          await w.page.locator("[data-sitesearch=button] .close").textContent(),
          "Close",
        );
        await w.done();
        const bar = await open("/free/live", phone);
        await bar.page.locator(`${BAR} input`).waitFor();
        assert.equal(await bar.page.locator(`${BAR} kbd`).count(), 0);
        await bar.done();
        // The results page at 390 px: every hit and source chip is itself at its corner.
        const r = await open(`/free/results?q=${encodeURIComponent("shipping to germany")}`, phone);
        await r.page.locator(`${RESULTS} .hit`).first().waitFor();
        await r.page.locator(`${RESULTS} .atext:not(.busy)`).first().waitFor();
        assert.equal(await r.page.locator("[data-sitesearch=button]").count(), 0);
        const covered = await r.page.evaluate((sel) => {
          const host = document.querySelector(sel)!;
          const out: string[] = [];
          for (const e of host.shadowRoot!.querySelectorAll(".hit, .srcs li, .rform")) {
            e.scrollIntoView({ block: "center" });
            const b = e.getBoundingClientRect();
            const top = document.elementFromPoint(b.x + b.width - 4, b.y + b.height - 4);
            if (top !== host) out.push(e.textContent!.slice(0, 40));
          }
          return out;
        }, RESULTS);
        assert.deepEqual(covered, []);
        await r.page.evaluate(() => scrollTo(0, 0));
        await shot(r.page, "results-390.png");
        await r.done();
      },
    );

    await t.step("recent searches show in the empty dialog and can be cleared", async () => {
      const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
      const page = await context.newPage();
      await page.goto(host.origin + "/free/button");
      const dialog = page.locator("[data-sitesearch=button] dialog");
      const input = dialog.locator("[role=combobox]");
      await page.getByRole("button", { name: "Search" }).click();
      await input.waitFor();
      assert.equal(await dialog.locator(".head").isVisible(), false, "nothing yet");
      for (const q of ["decaf", "espresso roast"]) {
        await input.fill(q);
        await Promise.all([page.waitForURL(/\/free\/results\?q=/), input.press("Enter")]);
        await page.goto(host.origin + "/free/button");
        await page.getByRole("button", { name: "Search" }).click();
      }
      await dialog.locator(".head").waitFor();
      assert.deepEqual(await dialog.locator("[role=option]").allTextContents(), [
        "espresso roast",
        "decaf",
      ]);
      await shot(page, "recent-searches.png");
      await input.press("ArrowDown");
      await input.press("ArrowDown");
      await Promise.all([page.waitForURL(/\/free\/results\?q=decaf$/), input.press("Enter")]);
      await page.locator(`${RESULTS} .hit`).first().waitFor();
      await page.goto(host.origin + "/free/button");
      await page.getByRole("button", { name: "Search" }).click();
      await dialog.locator(".head").waitFor();
      await dialog.locator(".clear").click();
      assert.equal(await dialog.locator(".head").isVisible(), false);
      assert.equal(await dialog.locator("[role=option]").count(), 0);
      assert.equal(await page.evaluate(() => localStorage.getItem("sitesearch:recent")), null);
      assert.equal(await input.evaluate((e) => e.matches(":focus")), true);
      await context.close();
    });

    await t.step(
      "a corrected query says what it showed, in the bar and on the results page",
      async () => {
        const w = await open("/free/live");
        await w.page.route("**/api/search?**", async (route: Route) => {
          const res = await route.fetch();
          const body = await res.json();
          body.meta.corrections = [{ from: "shiping", to: "shipping" }];
          await route.fulfill({ response: res, json: body });
        });
        const input = w.page.locator(`${BAR} input`);
        await input.pressSequentially("shiping costs", { delay: 20 });
        // Every prefix's answer is rewritten too; the line read is the complete query's.
        await w.page.locator(`${BAR} [role=listbox][data-query="shiping costs"]`).waitFor();
        const line = w.page.locator(`${BAR} .fix`);
        await line.waitFor();
        assert.equal(await line.textContent(), "Showing results for “shipping costs”");
        await shot(w.page, "live-corrected.png");
        await w.page.goto(`${host.origin}/free/results?q=shiping+costs`);
        const fix = w.page.locator(`${RESULTS} .fix`);
        await fix.waitFor();
        assert.equal(await fix.textContent(), "Showing results for “shipping costs”");
        await shot(w.page, "results-corrected.png");
        await w.done();
      },
    );

    await t.step("a refused search leaves no AI answer above it", async () => {
      const busy = await makeSite(api.call, {
        plan: "basic",
        pages: PAGES,
        settings: { limits: { searchesPerMinute: 0 } },
      });
      host.pages.set("/busy/results", {
        head: resultsTag(api.origin, busy.publicKey, { "data-summary": "true" }),
        body: `<main><div data-site-search-results></div></main>`,
      });
      const context = await browser.newContext();
      const page = await context.newPage();
      const asked: string[] = [];
      page.on("request", (r) => r.url().includes("/api/summarize") && asked.push(r.url()));
      await page.goto(`${host.origin}/busy/results?q=${encodeURIComponent(QUESTION)}`);
      const notice = page.locator(`${RESULTS} .notice`);
      await notice.waitFor({ state: "visible" });
      assert.match((await notice.textContent())!, /busy/);
      await page.waitForTimeout(500);
      assert.equal(await page.locator(`${RESULTS} section.answer`).isVisible(), false);
      assert.deepEqual(asked, []);
      await context.close();
    });

    await t.step("a public key in its grace period still searches, and stops after", async () => {
      const site = await makeSite(api.call, { plan: "free", pages: PAGES });
      const rotated = await (await api.call(
        `/api/admin/sites/${site.id}/keys/rotate`,
        admin(site.adminKey, { key: "public", graceSeconds: 6 }),
      )).json();
      const until = Date.parse(rotated.previousPublicKey.expiresAt);
      const tag = widgetTag(api.origin, site.publicKey, { "data-live": "true" });
      host.pages.set("/grace/live", {
        head: tag,
        body: `<header><div data-site-search></div></header><main>Old key.</main>`,
      });
      const w = await open("/grace/live");
      await w.page.locator(`${BAR} input`).pressSequentially("decaf", { delay: 20 });
      await w.page.locator(`${BAR} [role=listbox][data-query=decaf]`).waitFor();
      assert.ok(Date.now() < until, "the old key answered within its grace period");
      await w.done();
      await new Promise((r) => setTimeout(r, Math.max(0, until - Date.now()) + 100));
      const after = await open("/grace/live");
      await after.page.locator(`${BAR} input`).pressSequentially("decaf", { delay: 20 });
      await after.page.locator(`${BAR} .msg`)
        .filter({ hasText: "Search is not available on this page." }).waitFor();
      await after.done();
      const view = await (await api.call(`/api/admin/sites/${site.id}`, admin(OPERATOR))).json();
      assert.equal(view.site.previousPublicKey, null);
    });
  } finally {
    await browser.close();
    await host.close();
    await api.close();
  }
});
