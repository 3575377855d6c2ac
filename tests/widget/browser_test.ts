/**
 * widget.js and results.js in headless Chromium, against the real app on loopback. Host pages
 * live on a second loopback server, so every call the scripts make is cross-origin, as on a
 * customer's site. Screenshots land in tests/.screenshots/.
 */
import assert from "node:assert/strict";
import type { Browser, Page, Route } from "playwright-core";
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
import { numberedPages } from "../helpers.ts";
import { staleBundles } from "../../scripts/build.ts";

const BUSY = "Search is busy right now. Please try again in a minute.";
const MONTHLY = "This site's search has reached its monthly limit.";
const QUESTION = "how long does shipping to germany take";

/** Payloads that must arrive as text and run nothing. */
const XSS = {
  title: `Widget <img src=x onerror="window.__pwned='title'"> guide`,
  description: `Widget </mark><script>window.__pwned='desc'</script> tips`,
  body: `The widget <b onmouseover="window.__pwned='b'">bold</b> and ` +
    `<svg onload="window.__pwned='svg'"> then </mark><img src=x onerror=window.__pwned=1> widget.`,
  url: `/evil"><svg/onload=window.__pwned=2>`,
  query: `widget <img src=x onerror="window.__pwned='q'">`,
};

interface Watched {
  page: Page;
  errors: string[];
  logs: string[];
  done: () => Promise<void>;
}

browserSuite("browser - widget.js and results.js on a host page", async (t, executablePath) => {
  const api = await serveApp();
  const host = serveHost();
  const { chromium } = await loadPlaywright();
  const browser: Browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  await Deno.mkdir(SCREENSHOTS, { recursive: true });
  const shot = (page: Page, name: string, selector?: string, fullPage = false) =>
    selector
      ? page.locator(selector).first().screenshot({ path: new URL(name, SCREENSHOTS).pathname })
      : page.screenshot({ path: new URL(name, SCREENSHOTS).pathname, fullPage });

  /** A fresh page that records uncaught errors; `done` asserts there were none and closes it. */
  const open = async (path: string, o: { scheme?: "light" | "dark"; init?: string } = {}) => {
    const context = await browser.newContext({
      viewport: { width: 1100, height: 760 },
      colorScheme: o.scheme ?? "light",
    });
    const page = await context.newPage();
    const errors: string[] = [];
    const logs: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("console", (m) => logs.push(m.text()));
    page.on("dialog", (d) => {
      errors.push("a dialog opened: " + d.message());
      d.dismiss().catch(() => {});
    });
    if (o.init) await page.addInitScript(o.init);
    await page.goto(host.origin + path);
    const w: Watched = {
      page,
      errors,
      logs,
      done: async () => {
        await context.close();
        assert.deepEqual(errors, []);
      },
    };
    return w;
  };

  try {
    const stale = await staleBundles();
    assert.deepEqual(stale.map((b) => b.out), [], "bundles are stale: run deno task build");
    // The demo site (Business, summaries on) comes from /demo, as after `deno task start`.
    const demoHtml = await (await api.call("/demo/")).text();
    const demoKey = /data-key="(pk_\w+)"/.exec(demoHtml)![1];
    const pages = (name: string, key: string, o: { live?: Record<string, string> } = {}) => {
      const widget = widgetTag(api.origin, key, {
        "data-live": "true",
        "data-results-page": `/${name}/results`,
        ...o.live,
      });
      host.pages.set(`/${name}/live`, {
        head: widget,
        body: `<header><div data-site-search></div></header>` +
          `<main><p>A host page.</p><input id="other" aria-label="Another field"></main>`,
      });
      host.pages.set(`/${name}/results`, {
        head: widget + resultsTag(api.origin, key, { "data-summary": "true" }),
        body: `<header><div data-site-search></div></header>` +
          `<main><h1>Search results</h1><div data-site-search-results></div></main>`,
      });
      host.pages.set(`/${name}/button`, {
        head: widget,
        body: `<main><p>No bar here.</p><input id="other" aria-label="Another field"></main>`,
      });
    };
    pages("demo", demoKey);

    await t.step("the live bar shows highlighted results as you type, debounced", async () => {
      const w = await open("/demo/live");
      const searches: string[] = [];
      w.page.on("request", (r) => r.url().includes("/api/search") && searches.push(r.url()));
      const input = w.page.locator(`${BAR} input`);
      await shot(w.page, "bar.png", BAR);
      await input.pressSequentially("shipping", { delay: 25 });
      await w.page.locator(OPTION).first().waitFor();
      assert.equal(await input.getAttribute("role"), "combobox");
      assert.equal(await input.getAttribute("aria-expanded"), "true");
      // Instant: at most one request a character from the third on (the server counts them as
      // one search: tests/islands/typing_test.ts).
      assert.ok(searches.length <= 6, `typing one word sent ${searches.length} searches`);
      assert.ok((await w.page.locator(`${OPTION} mark`).count()) > 0, "matches are marked");
      const marks = await w.page.locator(`${OPTION} mark`).allTextContents();
      assert.ok(marks.every((m) => /^ship/i.test(m)), marks.join(", "));
      const status = w.page.locator(`${BAR} [role=status]`);
      assert.match(await status.textContent() ?? "", /^\d+ results? available\.$/);
      await shot(w.page, "live-dropdown.png");
      // One letter is too few; the same query again comes from the page's cache.
      const before = searches.length;
      await input.fill("s");
      await input.dispatchEvent("input");
      assert.equal(await input.getAttribute("aria-expanded"), "false");
      await input.fill("shipping");
      await input.dispatchEvent("input");
      await w.page.waitForTimeout(400);
      assert.equal(searches.length, before, "a repeated query is answered from the cache");
      assert.equal(await input.getAttribute("aria-expanded"), "true");
      await w.done();
    });

    await t.step("a stale live request is aborted when the query changes", async () => {
      const w = await open("/demo/live");
      await w.page.route("**/api/search?q=cof&*", async (r) => {
        await new Promise((done) => setTimeout(done, 800));
        await r.continue().catch(() => {}); // already aborted by the page
      });
      const aborted: string[] = [];
      w.page.on("requestfailed", (r) => aborted.push(new URL(r.url()).searchParams.get("q")!));
      const input = w.page.locator(`${BAR} input`);
      await input.pressSequentially("cof", { delay: 10 });
      await w.page.waitForTimeout(300); // past the debounce: the request for "cof" is in flight
      await input.pressSequentially("fee", { delay: 10 });
      await w.page.locator(`${OPTION} mark`).filter({ hasText: /^coffee$/i }).first().waitFor();
      // "cof" was in flight when the query changed; on a busy machine a keystroke of "fee" may
      // come after the debounce too, and its request is as stale: what is aborted is stale only.
      assert.ok(aborted.includes("cof"), `aborted: ${aborted}`);
      assert.ok(
        aborted.every((q) => "coffee".startsWith(q) && q !== "coffee"),
        `aborted: ${aborted}`,
      );
      await w.page.waitForTimeout(700);
      const marks = await w.page.locator(`${OPTION} mark`).allTextContents();
      assert.ok(marks.every((m) => /^coffee/i.test(m)), "the late answer for cof is not drawn");
      await w.done();
    });

    await t.step("arrows move through the results and Enter opens the active one", async () => {
      const w = await open("/demo/live");
      const input = w.page.locator(`${BAR} input`);
      await input.pressSequentially("decaf", { delay: 10 });
      await w.page.locator(OPTION).first().waitFor();
      await input.press("ArrowDown");
      await input.press("ArrowDown");
      const second = w.page.locator(OPTION).nth(1);
      assert.equal(
        await input.getAttribute("aria-activedescendant"),
        await second.getAttribute("id"),
      );
      assert.equal(await second.getAttribute("aria-selected"), "true");
      await input.press("ArrowUp");
      await input.press("ArrowDown");
      const href = await second.locator("a").getAttribute("href");
      await Promise.all([w.page.waitForURL(href!), input.press("Enter")]);
      assert.equal(new URL(w.page.url()).origin, host.origin);
      await w.page.locator("#landed").waitFor();
      await w.done();
    });

    await t.step("Escape closes the list and Enter goes to the results page with ?q=", async () => {
      const w = await open("/demo/live");
      const input = w.page.locator(`${BAR} input`);
      await input.pressSequentially("espresso", { delay: 10 });
      // The complete query's list, not a prefix's whose answer for "espresso" is still coming.
      await w.page.locator(`${BAR} [role=listbox][data-query=espresso]`).waitFor();
      await input.press("Escape");
      assert.equal(await input.getAttribute("aria-expanded"), "false");
      assert.equal(await w.page.locator(`${BAR} .pop`).isVisible(), false);
      assert.equal(await input.inputValue(), "espresso");
      await Promise.all([w.page.waitForURL(/\/demo\/results\?q=espresso$/), input.press("Enter")]);
      await w.page.locator(`${RESULTS} .hit`).first().waitFor();
      await w.done();
    });

    await t.step("the shortcut opens the dialog, but not while typing in a field", async () => {
      const w = await open("/demo/button");
      const fab = w.page.getByRole("button", { name: "Search" });
      await fab.waitFor();
      const dialog = w.page.locator("[data-sitesearch=button] dialog");
      // Keys reach a page only once it has focus, as for a visitor who has clicked into it.
      await w.page.getByText("No bar here.").click();
      await w.page.keyboard.press("/");
      await dialog.waitFor({ state: "visible" });
      assert.equal(
        await w.page.locator("dialog [role=combobox]").evaluate((e) => e.matches(":focus")),
        true,
      );
      await w.page.keyboard.press("Escape");
      await dialog.waitFor({ state: "hidden" });
      await w.page.keyboard.press("Control+k");
      await dialog.waitFor({ state: "visible" });
      await w.page.locator("dialog [role=combobox]").pressSequentially("decaf", { delay: 10 });
      await w.page.locator("dialog [role=option]").first().waitFor();
      await shot(w.page, "dialog.png");
      await w.page.keyboard.press("Escape");
      await dialog.waitFor({ state: "hidden" });
      const other = w.page.locator("#other");
      await other.click();
      await w.page.keyboard.type("a/b");
      await w.page.keyboard.press("Control+k");
      assert.equal(await dialog.isVisible(), false);
      assert.equal(await other.inputValue(), "a/b");
      await fab.click();
      await dialog.waitFor({ state: "visible" });
      await w.done();

      host.pages.set("/demo/no-shortcut", {
        head: widgetTag(api.origin, demoKey, { "data-shortcut": "false" }),
        body: "<main>Shortcut off.</main>",
      });
      const off = await open("/demo/no-shortcut");
      await off.page.getByRole("button", { name: "Search" }).waitFor();
      await off.page.getByText("Shortcut off.").click(); // focused, so a "/" could reach it
      await off.page.keyboard.press("/");
      await off.page.waitForTimeout(100);
      assert.equal(await off.page.locator("dialog").isVisible(), false);
      await off.done();
    });

    await t.step(
      "the results page shows count, highlights and pagination; Back restores",
      async () => {
        const w = await open("/demo/results?q=coffee");
        const count = w.page.locator(`${RESULTS} .count`);
        await w.page.locator(`${RESULTS} .hit`).first().waitFor();
        const found = Number(
          /^(\d+) results for “coffee” · Page 1 of (\d+)$/.exec(
            (await count.textContent())!,
          )?.[1],
        );
        assert.ok(found > 10, `found ${found}`);
        assert.equal(await w.page.locator(`${RESULTS} .hit`).count(), 10);
        assert.ok((await w.page.locator(`${RESULTS} .hit mark`).count()) > 5);
        assert.equal(
          await w.page.locator(`${RESULTS} .hit h3 a`).first().getAttribute("href")
            .then((h) => h!.startsWith(host.origin + "/")),
          true,
        );
        const firstTitle = await w.page.locator(`${RESULTS} .hit h3`).first().textContent();
        await w.page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
        await shot(w.page, "results.png", undefined, true);
        await w.page.locator(`${RESULTS} .pager a[aria-label="Page 2"]`).click();
        await w.page.waitForURL(/[?&]page=2/);
        await w.page.waitForFunction(() => true);
        await count.filter({ hasText: "Page 2 of" }).waitFor();
        const second = await w.page.locator(`${RESULTS} .hit h3`).first().textContent();
        assert.notEqual(second, firstTitle);
        assert.equal(
          await w.page.locator(`${RESULTS} .pager a[aria-current=page]`).textContent(),
          "2",
        );
        await w.page.goBack();
        await count.filter({ hasText: "Page 1 of" }).waitFor();
        assert.equal(await w.page.locator(`${RESULTS} .hit h3`).first().textContent(), firstTitle);
        assert.doesNotMatch(w.page.url(), /page=/);
        await w.page.goForward();
        await count.filter({ hasText: "Page 2 of" }).waitFor();
        assert.equal(
          await w.page.evaluate(() => (window as unknown as { marker: number }).marker),
          1,
        );
        // Refine in the page's own box.
        const box = w.page.locator(`${RESULTS} .rform input`);
        await box.fill("decaf");
        await box.press("Enter");
        await w.page.waitForURL(/q=decaf$/);
        await count.filter({ hasText: "for “decaf”" }).waitFor();
        await box.fill("xyzzyplugh");
        await box.press("Enter");
        await count.filter({ hasText: "No results for “xyzzyplugh”." }).waitFor();
        assert.equal(await w.page.locator(`${RESULTS} .hit`).count(), 0);
        assert.equal(await w.page.locator(`${RESULTS} .pager`).isVisible(), false);
        assert.match(
          (await w.page.locator(`${RESULTS} .notice`).textContent())!,
          /different words/,
        );
        await w.done();
      },
    );

    await t.step("the AI answer streams in with its sources and a follow-up works", async () => {
      const w = await open(`/demo/results?q=${encodeURIComponent(QUESTION)}`);
      const answer = w.page.locator(`${RESULTS} section.answer`);
      await answer.waitFor({ state: "visible" });
      const text = answer.locator(".atext").first();
      await w.page.locator(`${RESULTS} .atext:not(.busy)`).first().waitFor();
      assert.ok(((await text.textContent()) ?? "").length > 20);
      const sources = answer.locator(".srcs a");
      assert.ok((await sources.count()) > 0, "page sources are links");
      assert.ok((await sources.first().getAttribute("href"))!.startsWith(host.origin + "/"));
      assert.ok(await w.page.locator(`${RESULTS} .hit`).first().isVisible());
      const follow = answer.locator("form.follow");
      await follow.waitFor({ state: "visible" });
      await shot(w.page, "answer.png");
      await follow.locator("input").fill("And how much does it cost?");
      await follow.locator("button").click();
      await answer.locator(".uq").waitFor();
      assert.equal(await answer.locator(".uq").textContent(), "And how much does it cost?");
      await w.page.locator(`${RESULTS} .atext:not(.busy)`).nth(1).waitFor();
      assert.ok(((await answer.locator(".atext").nth(1).textContent()) ?? "").length > 0);
      await follow.waitFor({ state: "visible" });
      await shot(w.page, "answer-followup.png");
      await w.done();
    });

    const coffee = [
      { url: "/a", title: "Shipping to Germany", body: "Shipping to Germany takes two days." },
      { url: "/b", title: "Shipping costs", body: "Shipping costs five euros in Europe." },
    ];
    const free = await makeSite(api.call, { plan: "free", pages: coffee });
    pages("free", free.publicKey);
    const off = await makeSite(api.call, {
      plan: "pro",
      pages: coffee,
      settings: { aiSummaries: false },
    });
    pages("off", off.publicKey);

    await t.step("a free-plan site shows the answer but no follow-up box", async () => {
      const w = await open(`/free/results?q=${encodeURIComponent("shipping to germany")}`);
      await w.page.locator(`${RESULTS} .atext:not(.busy)`).first().waitFor();
      assert.equal(await w.page.locator(`${RESULTS} section.answer`).isVisible(), true);
      assert.equal(await w.page.locator(`${RESULTS} form.follow`).isVisible(), false);
      await w.done();
    });

    await t.step(
      "no summary is asked for when the site has them off, or without data-summary",
      async () => {
        const asked: string[] = [];
        const w = await open(`/off/results?q=shipping`);
        w.page.on("request", (r) => r.url().includes("/api/summarize") && asked.push(r.url()));
        await w.page.locator(`${RESULTS} .hit`).first().waitFor();
        await w.page.waitForTimeout(200);
        assert.equal(await w.page.locator(`${RESULTS} section.answer`).isVisible(), false);
        assert.deepEqual(asked, []);
        await w.done();
      },
    );

    await t.step("a failed summary says so in the answer box and keeps the results", async () => {
      const meta = JSON.stringify({
        conversationId: "cv_x",
        conversationEnabled: true,
        sources: [],
      });
      const failures: [string, (r: Route) => Promise<void>][] = [
        ["http 502", (r) => r.fulfill({ status: 502, body: "{}" })],
        ["network", (r) => r.abort()],
        [
          "error event",
          (r) =>
            r.fulfill({
              status: 200,
              headers: { "Content-Type": "text/event-stream", "Access-Control-Allow-Origin": "*" },
              body: `event: meta\ndata: ${meta}\n\nevent: delta\ndata: {"text":"Half an"}\n\n` +
                `event: error\ndata: {"code":"UPSTREAM_ERROR","status":502}\n\n`,
            }),
        ],
      ];
      for (const [name, handler] of failures) {
        const context = await browser.newContext();
        const page = await context.newPage();
        const errors: string[] = [];
        page.on("pageerror", (e) => errors.push(String(e)));
        await page.route("**/api/summarize", (r) =>
          r.request().method() === "OPTIONS"
            ? r.fulfill({
              status: 204,
              headers: {
                "Access-Control-Allow-Origin": "*",
                "Access-Control-Allow-Headers": "X-API-Key, Content-Type",
                "Access-Control-Allow-Methods": "POST",
              },
            })
            : handler(r));
        await page.goto(`${host.origin}/demo/results?q=${encodeURIComponent(QUESTION)}`);
        await page.locator(`${RESULTS} .hit`).first().waitFor();
        await page.waitForTimeout(300);
        const box = page.locator(`${RESULTS} section.answer`);
        await box.filter({ hasText: "could not be loaded right now" }).waitFor();
        assert.ok(await page.locator(`${RESULTS} .hit`).first().isVisible(), name);
        await context.close();
        assert.deepEqual(errors, [], name);
      }
    });

    const evil = await makeSite(api.call, {
      plan: "pro",
      pages: [
        { url: XSS.url, title: XSS.title, description: XSS.description, body: XSS.body },
        ...numberedPages(3),
      ],
    });
    pages("evil", evil.publicKey);

    await t.step(
      "hostile titles, bodies, URLs and queries arrive as text and run nothing",
      async () => {
        const w = await open("/evil/live");
        const input = w.page.locator(`${BAR} input`);
        await input.fill(XSS.query);
        await input.dispatchEvent("input");
        await w.page.locator(OPTION).first().waitFor();
        await input.press("ArrowDown");
        const titles = await w.page.locator(`${OPTION} .t`).allTextContents();
        assert.ok(titles.includes(XSS.title), titles.join(" | "));
        await input.press("Escape");
        await Promise.all([w.page.waitForURL(/\/evil\/results\?q=/), input.press("Enter")]);
        await w.page.locator(`${RESULTS} .hit`).first().waitFor();
        await w.page.locator(`${RESULTS} .atext:not(.busy)`).first().waitFor();
        const count = await w.page.locator(`${RESULTS} .count`).textContent();
        assert.ok(count!.includes(XSS.query), count!);
        const hitTitles = await w.page.locator(`${RESULTS} .hit h3`).allTextContents();
        assert.ok(hitTitles.includes(XSS.title));
        const bodies = await w.page.locator(`${RESULTS} .hit`).allTextContents();
        assert.ok(bodies.some((b) => b.includes("</mark><img src=x onerror=window.__pwned=1>")));
        const injected = await w.page.evaluate(() => {
          const roots = [...document.querySelectorAll("[data-sitesearch]")].map((h) =>
            h.shadowRoot!
          );
          return {
            pwned: (window as unknown as { __pwned?: unknown }).__pwned ?? null,
            elements: roots.flatMap((
              r,
            ) => [...r.querySelectorAll("img, script, svg:not(.icon), b")])
              .map((e) => e.outerHTML),
            markChildren: roots.flatMap((r) => [...r.querySelectorAll("mark *")]).length,
          };
        });
        assert.deepEqual(injected, { pwned: null, elements: [], markChildren: 0 });
        await w.page.waitForTimeout(200); // a broken image's onerror would have fired by now
        assert.equal(
          await w.page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned ?? null),
          null,
        );
        await w.done();
      },
    );

    await t.step("a strict CSP host page reports no violation", async () => {
      const csp = `default-src 'none'; script-src ${api.origin}; connect-src ${api.origin}; ` +
        `style-src 'self'; img-src 'self'; require-trusted-types-for 'script'; ` +
        `report-uri ${host.origin}/csp-report`;
      host.pages.set("/demo/csp", {
        head: host.pages.get("/demo/results")!.head,
        body: host.pages.get("/demo/results")!.body,
        csp,
      });
      host.pages.set("/demo/csp-button", { ...host.pages.get("/demo/button")!, csp });
      const init = `window.__violations = [];
        document.addEventListener("securitypolicyviolation",
          (e) => window.__violations.push(e.violatedDirective + " " + e.blockedURI), true);`;
      const w = await open(`/demo/csp?q=${encodeURIComponent(QUESTION)}`, { init });
      const consoleCsp: string[] = [];
      w.page.on(
        "console",
        (m) => /Content.Security.Policy|Trusted Type/i.test(m.text()) && consoleCsp.push(m.text()),
      );
      await w.page.locator(`${RESULTS} .atext:not(.busy)`).first().waitFor();
      const input = w.page.locator(`${BAR} input`);
      await input.pressSequentially("roast", { delay: 10 });
      await w.page.locator(OPTION).first().waitFor();
      await w.page.locator(`${RESULTS} .pager a[aria-label="Page 2"]`).click().catch(() => {});
      const b = await open("/demo/csp-button", { init });
      await b.page.keyboard.press("/");
      await b.page.locator("dialog [role=combobox]").pressSequentially("decaf", { delay: 10 });
      await b.page.locator("dialog [role=option]").first().waitFor();
      await w.page.waitForTimeout(200);
      assert.deepEqual(
        await w.page.evaluate(() => (window as unknown as { __violations: string[] }).__violations),
        [],
      );
      assert.deepEqual(
        await b.page.evaluate(() => (window as unknown as { __violations: string[] }).__violations),
        [],
      );
      assert.deepEqual(consoleCsp, []);
      assert.deepEqual(host.cspReports, []);
      // The styles did apply: the bar has its designed height.
      const height = await w.page.locator(`${BAR} .field`).evaluate((e) =>
        e.getBoundingClientRect().height
      );
      assert.ok(height > 40 && height < 50, `bar height ${height}`);
      await b.done();
      await w.done();
      // The detector itself works: an inline style on the same page is caught.
      host.pages.set("/demo/csp-control", { head: "", body: `<p style="color:red">x</p>`, csp });
      const control = await open("/demo/csp-control", { init });
      await control.page.waitForTimeout(100);
      const caught: string[] = await control.page.evaluate(() =>
        (window as unknown as { __violations: string[] }).__violations
      );
      assert.ok(caught.some((v) => v.startsWith("style-src")), caught.join(", "));
      await control.done();
      host.cspReports.length = 0;
    });

    await t.step("hostile host CSS leaves the widget looking and working as designed", async () => {
      const hostile = `<style>
        * { all: unset }
        input { font-size: 40px !important; color: red; border: 5px solid lime }
        div, p, ul, li, a, form, dialog, button { display: inline !important; font: 30px/4 serif; letter-spacing: 4px }
        [role=listbox], [role=option], mark, dialog, .pop { display: none !important; background: lime }
        mark { background: red !important; color: yellow }
      </style>`;
      const plain = host.pages.get("/demo/live")!;
      host.pages.set("/demo/hostile", { head: plain.head + hostile, body: plain.body });
      host.pages.set("/demo/hostile-button", {
        head: plain.head + hostile,
        body: host.pages.get("/demo/button")!.body,
      });
      const look = async (w: Watched) => {
        const input = w.page.locator(`${BAR} input`);
        await input.pressSequentially("shipping", { delay: 10 });
        await w.page.locator(OPTION).first().waitFor();
        return await w.page.evaluate((bar) => {
          const root = document.querySelector(bar)!.shadowRoot!;
          const css = (sel: string) => getComputedStyle(root.querySelector(sel)!);
          const box = (sel: string) => root.querySelector(sel)!.getBoundingClientRect();
          return {
            inputFont: css("input").fontSize,
            inputFamily: css("input").fontFamily,
            fieldHeight: Math.round(box(".field").height),
            fieldBorder: css(".field").borderTopColor,
            optionHeight: Math.round(box("[role=option]").height),
            markBg: css("mark").backgroundColor,
            listVisible: css(".pop").display !== "none" && box(".pop").height > 50,
          };
        }, BAR);
      };
      const good = await open("/demo/live");
      const expected = await look(good);
      await good.done();
      const bad = await open("/demo/hostile");
      const got = await look(bad);
      assert.deepEqual(got, expected);
      assert.equal(got.inputFont, "16px");
      await shot(bad.page, "hostile-css.png");
      await bad.page.locator(`${BAR} input`).press("ArrowDown");
      const href = await bad.page.locator(`${OPTION} a`).first().getAttribute("href");
      await Promise.all([
        bad.page.waitForURL(href!),
        bad.page.locator(`${BAR} input`).press("Enter"),
      ]);
      await bad.done();
      const dlg = await open("/demo/hostile-button");
      await dlg.page.getByRole("button", { name: "Search" }).click();
      await dlg.page.locator("dialog [role=combobox]").pressSequentially("decaf", { delay: 10 });
      await dlg.page.locator("dialog [role=option]").first().waitFor({ state: "visible" });
      await dlg.done();
    });

    const perMinute = await makeSite(api.call, {
      plan: "basic",
      pages: coffee,
      settings: { limits: { searchesPerMinute: 0 } },
    });
    pages("busy", perMinute.publicKey);
    const perMonth = await makeSite(api.call, {
      plan: "basic",
      pages: coffee,
      settings: { limits: { searchesPerMonth: 0 } },
    });
    pages("monthly", perMonth.publicKey);

    await t.step("a 429 shows its friendly line, never the raw code", async () => {
      for (const [name, line] of [["busy", BUSY], ["monthly", MONTHLY]]) {
        const w = await open(`/${name}/results?q=shipping`);
        const notice = w.page.locator(`${RESULTS} .notice`);
        await notice.waitFor({ state: "visible" });
        assert.equal(await notice.textContent(), line);
        const text = await w.page.locator(RESULTS).evaluate((h) => h.shadowRoot!.textContent);
        assert.doesNotMatch(text!, /[A-Z]{4,}_[A-Z_]+|429/);
        const input = w.page.locator(`${BAR} input`);
        await input.pressSequentially("ship", { delay: 10 });
        await w.page.locator(`${BAR} .msg`).filter({ hasText: line }).waitFor();
        if (name === "busy") await shot(w.page, "rate-limited.png");
        await w.done();
      }
    });

    await t.step("a network error says so and Try again recovers", async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.route("**/api/search**", (r) => r.abort());
      await page.goto(`${host.origin}/demo/results?q=decaf`);
      const notice = page.locator(`${RESULTS} .notice`);
      await notice.waitFor({ state: "visible" });
      assert.match((await notice.textContent())!, /could not be reached/);
      await page.unroute("**/api/search**");
      await notice.locator("button").click();
      await page.locator(`${RESULTS} .hit`).first().waitFor();
      await context.close();
    });

    await t.step("window.SiteSearch is the only global added, and it works", async () => {
      host.pages.set("/blank", { head: "", body: "<main></main>" });
      const blank = await open("/blank");
      const before: string[] = await blank.page.evaluate(() => Object.getOwnPropertyNames(window));
      await blank.done();
      const w = await open("/demo/results?q=decaf");
      await w.page.locator(`${RESULTS} .hit`).first().waitFor();
      const after: string[] = await w.page.evaluate(() => Object.getOwnPropertyNames(window));
      assert.deepEqual(after.filter((n) => !before.includes(n)), ["SiteSearch"]);
      const got = await w.page.evaluate(async () => {
        const s = (window as unknown as {
          SiteSearch: {
            config: Record<string, unknown>;
            fetchResults(q: string): Promise<{ results: unknown[]; meta: { found: number } }>;
          };
        }).SiteSearch;
        const data = await s.fetchResults("decaf");
        return {
          key: s.config.key,
          live: s.config.live,
          n: data.results.length,
          found: data.meta.found,
        };
      });
      assert.equal(got.key, demoKey);
      assert.equal(got.live, true);
      assert.ok(got.n > 0 && got.found >= got.n);
      await Promise.all([
        w.page.waitForURL(/\/demo\/results\?q=cold\+brew$/),
        w.page.evaluate(() =>
          (window as unknown as { SiteSearch: { search(q: string): void } }).SiteSearch.search(
            "cold brew",
          )
        ),
      ]);
      await w.done();
    });

    await t.step("an error inside the scripts never breaks the host page", async () => {
      host.pages.set("/demo/broken", {
        head: host.pages.get("/demo/results")!.head,
        body: host.pages.get("/demo/results")!.body + `<script>window.hostRan = true;</script>`,
      });
      const w = await open("/demo/broken?q=decaf", {
        init:
          `Element.prototype.attachShadow = function () { throw new Error("no shadow today"); };`,
      });
      await w.page.waitForLoadState("load");
      await w.page.waitForTimeout(300);
      assert.equal(
        await w.page.evaluate(() => (window as unknown as { hostRan?: boolean }).hostRan),
        true,
      );
      assert.equal(
        await w.page.evaluate(() =>
          typeof (window as unknown as { SiteSearch?: unknown }).SiteSearch
        ),
        "object",
      );
      assert.ok(
        w.logs.some((l) => l.includes("[SiteSearch]") && l.includes("no shadow today")),
        w.logs.join("\n"),
      );
      await w.done(); // no uncaught error reached the page
    });

    await t.step("the demo site under /demo/ works as a visitor would use it", async () => {
      const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      await page.goto(api.origin + "/demo/");
      const input = page.locator(`${BAR} input`);
      await input.pressSequentially("cold brew", { delay: 10 });
      await page.locator(OPTION).first().waitFor();
      const href = await page.locator(`${OPTION} a`).first().getAttribute("href");
      assert.ok(href!.startsWith(api.origin + "/demo/"), href!);
      await shot(page, "demo-home.png");
      await input.press("Escape");
      await Promise.all([
        page.waitForURL(/\/demo\/search-results\?q=cold\+brew$/),
        input.press("Enter"),
      ]);
      await page.locator(`${RESULTS} .atext:not(.busy)`).first().waitFor();
      await shot(page, "demo-results.png", undefined, true);
      await page.locator(`${RESULTS} .hit h3 a`).first().click();
      await page.waitForURL(/\/demo\/(blog|shop|faq)/);
      assert.equal(await page.locator("h1").count(), 1);
      await page.goto(api.origin + "/demo/shop/house-espresso");
      await page.getByRole("button", { name: "Search" }).click();
      await page.locator("dialog [role=combobox]").pressSequentially("grinder", { delay: 10 });
      await page.locator("dialog [role=option]").first().waitFor();
      await shot(page, "demo-dialog.png");
      await context.close();
      assert.deepEqual(errors, []);
    });

    await t.step(
      "dark mode follows prefers-color-scheme on a page that supports both",
      async () => {
        // data-theme="auto" follows the page; a page declaring both schemes lets the system choose.
        const both = host.pages.get("/demo/results")!;
        host.pages.set("/demo/results-both", {
          ...both,
          head: both.head + "<style>:root{color-scheme:light dark}</style>",
        });
        const w = await open("/demo/results-both?q=coffee", { scheme: "dark" });
        await w.page.locator(`${RESULTS} .hit`).first().waitFor();
        const bg = await w.page.locator(`${BAR} .field`).evaluate((e) =>
          getComputedStyle(e).backgroundColor
        );
        assert.equal(bg, "rgb(22, 27, 34)");
        await w.page.locator(`${RESULTS} .atext:not(.busy)`).first().waitFor().catch(() => {});
        await shot(w.page, "results-dark.png", undefined, true);
        await w.done();
      },
    );
  } finally {
    await browser.close();
    await host.close();
    await api.close();
  }
});
