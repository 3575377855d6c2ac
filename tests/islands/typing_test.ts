/**
 * A question typed into the widget's live bar and into the islands results page's box, in
 * headless Chromium: both send typing sessions, both are paced alike, and the server's monthly
 * counter (read through the usage API) rises the same on each.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { admin } from "../helpers.ts";
import {
  BAR,
  browserSuite,
  CHROMIUM_ARGS,
  loadPlaywright,
  makeSite,
  serveApp,
  serveHost,
  type Site,
  widgetTag,
} from "../widget/browser_helpers.ts";

const PAGES = [
  { url: "/store", title: "How to store coffee beans", body: "Store coffee beans airtight." },
  { url: "/grind", title: "Grinding coffee", body: "Grind coffee beans just before brewing." },
  { url: "/decaf", title: "Decaf beans", body: "Our decaf coffee beans use water." },
];

/** What one surface sent and what the server counted for a typed question. */
interface Typed {
  requests: number;
  sessions: Set<string>;
  counted: number;
  /** Milliseconds from the last keystroke to the final query's results on screen. */
  lastToShown: number;
  /** Milliseconds from the first keystroke to the first suggestions on screen. */
  firstShown: number;
}

browserSuite(
  "browser - a typed question counts the same in the widget and the islands box",
  async (t, executablePath) => {
    const api = await serveApp();
    const host = serveHost();
    const { chromium } = await loadPlaywright();
    const browser: Browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
    const usage = async (site: Site) =>
      (await (await api.call(`/api/admin/sites/${site.id}/usage`, admin(site.adminKey))).json())
        .month.used as number;

    /** Types `q` at `delay` ms a key into `input` of a fresh page, then waits for `shown(q)`. */
    async function type(
      site: Site,
      url: string,
      input: string,
      shown: (q: string) => string,
      q: string,
      delay: number,
    ): Promise<Typed> {
      const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
      const page: Page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      const sessions = new Set<string>();
      let requests = 0;
      page.on("request", (r) => {
        if (!r.url().includes("/api/search")) return;
        requests++;
        sessions.add(new URL(r.url()).searchParams.get("session") ?? "(none)");
      });
      await page.goto(url);
      await page.locator(input).waitFor();
      await page.waitForFunction(() =>
        !document.querySelector("[data-island]") ||
        document.documentElement.dataset.islands === "hydrated"
      );
      const before = await usage(site);
      const box = page.locator(input);
      await box.click();
      // Timed in the page: each keystroke, the first frame showing any option, and the first
      // showing the final query's (inside the widget's shadow root, or on the page).
      await page.evaluate(([any, last]) => {
        const probe = { keys: [] as number[], first: 0, last: 0 };
        (window as unknown as { probe: typeof probe }).probe = probe;
        addEventListener("keydown", () => probe.keys.push(performance.now()), true);
        const root = () => document.querySelector("[data-sitesearch=bar]")?.shadowRoot ?? document;
        const tick = () => {
          if (!probe.first && root().querySelector(any)) probe.first = performance.now();
          if (root().querySelector(last)) probe.last = performance.now();
          else requestAnimationFrame(tick);
        };
        tick();
      }, [shown(""), shown(q)]);
      await box.pressSequentially(q, { delay });
      await page.waitForFunction(() =>
        (window as unknown as { probe: { last: number } }).probe.last
      );
      const { firstShown, lastToShown } = await page.evaluate(() => {
        const { probe } = window as unknown as {
          probe: { keys: number[]; first: number; last: number };
        };
        return {
          firstShown: Math.round(probe.first - probe.keys[0]),
          lastToShown: Math.round(probe.last - probe.keys.at(-1)!),
        };
      });
      await page.waitForTimeout(400); // anything still on its way is counted
      const counted = (await usage(site)) - before;
      await context.close();
      assert.deepEqual(errors, []);
      return { requests, sessions, counted, lastToShown, firstShown };
    }

    try {
      const question = "how do i store coffee beans";
      const widgetSite = await makeSite(api.call, { plan: "pro", pages: PAGES });
      const islandSite = await makeSite(api.call, { plan: "pro", pages: PAGES });
      host.pages.set("/live", {
        head: widgetTag(api.origin, widgetSite.publicKey, { "data-live": "true" }),
        body: `<header><div data-site-search></div></header><main>A host page.</main>`,
      });
      // Selectors inside the widget's shadow root, and on the islands page.
      const widgetIn = (q: string) =>
        q ? `[role=listbox][data-query="${q}"] [role=option]` : "[role=option]";
      const islandIn = (q: string) =>
        q
          ? `#search-suggestions[data-query="${q}"] [role=option]`
          : "#search-suggestions [role=option]";

      await t.step(`"${question}" at 200 ms a key counts the same on both surfaces`, async () => {
        const w = await type(
          widgetSite,
          host.origin + "/live",
          `${BAR} input`,
          widgetIn,
          question,
          200,
        );
        const i = await type(
          islandSite,
          `${api.origin}/search-results?key=${islandSite.publicKey}`,
          "#search-q",
          islandIn,
          question,
          200,
        );
        console.log(
          `widget: ${w.requests} requests, ${w.counted} counted; ` +
            `islands box: ${i.requests} requests, ${i.counted} counted`,
        );
        assert.equal(i.sessions.has("(none)"), false, "every live request carries its session");
        assert.equal(i.sessions.size, 1, "one question, one typing session");
        assert.equal(w.sessions.size, 1);
        assert.equal(i.counted, w.counted, "the islands box counts as the widget does");
        assert.ok(i.counted <= 3, `${i.counted} searches counted for one question`);
        assert.ok(
          Math.abs(i.requests - w.requests) <= 2,
          `${i.requests} vs ${w.requests} requests`,
        );
      });

      await t.step(
        "a 20-character query at 120 ms a key: instant, and at most 2 searches",
        async () => {
          const q = "coffee beans storing";
          assert.equal(q.length, 20);
          for (
            const [name, site, url, input, shown] of [
              ["widget", widgetSite, host.origin + "/live", `${BAR} input`, widgetIn],
              [
                "islands box",
                islandSite,
                `${api.origin}/search-results?key=${islandSite.publicKey}`,
                "#search-q",
                islandIn,
              ],
            ] as const
          ) {
            const r = await type(site, url, input, shown, q, 120);
            console.log(
              `${name}: first suggestions ${r.firstShown} ms after the first key; final results ` +
                `${r.lastToShown} ms after the last; ${r.requests} requests, ${r.counted} counted`,
            );
            assert.ok(r.counted <= 2, `${name}: ${r.counted} searches counted`);
            assert.ok(r.firstShown < 1000, `${name}: first suggestions after ${r.firstShown} ms`);
            assert.ok(r.lastToShown <= 250, `${name}: final results after ${r.lastToShown} ms`);
          }
        },
      );
    } finally {
      await browser.close();
      await host.close();
      await api.close();
    }
  },
);
