/**
 * Live search as a visitor types, and the widget's manners, in headless Chromium on a host page
 * of another origin. Searches are counted where they count: on the server.
 */
import assert from "node:assert/strict";
import type { Browser, BrowserContextOptions, Page } from "playwright-core";
import {
  browserSuite,
  CHROMIUM_ARGS,
  loadPlaywright,
  makeSite,
  resultsTag,
  SCREENSHOTS,
  serveApp,
  serveHost,
  widgetTag,
} from "./browser_helpers.ts";
import { admin, OPERATOR } from "../helpers.ts";

const BAR = "[data-sitesearch=bar]";
const OPTION = `${BAR} [role=option]`;
const RESULTS = "[data-sitesearch=results]";
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

    await t.step(
      "a 47-character question typed at 150 ms a key costs at most 3 searches",
      async () => {
        const w = await open("/free/live");
        const sent: string[] = [];
        w.page.on("request", (r) => {
          if (r.url().includes("/api/search")) sent.push(new URL(r.url()).searchParams.get("q")!);
        });
        const before = await usage(free);
        const input = w.page.locator(`${BAR} input`);
        await input.click();
        await input.pressSequentially(QUESTION, { delay: 150 });
        await w.page.waitForFunction(
          ([bar, q]) => {
            const root = document.querySelector(bar)!.shadowRoot!;
            return root.querySelector("[role=listbox]")?.getAttribute("data-query") === q;
          },
          [BAR, QUESTION] as const,
        );
        await w.page.waitForTimeout(500);
        const counted = (await usage(free)) - before;
        console.log(`typed ${QUESTION.length} chars: ${sent.length} requests, ${counted} counted`);
        assert.ok(counted <= 3, `${counted} searches counted (${sent.length} requests)`);
        assert.equal(sent.at(-1), QUESTION);
        const titles = await w.page.locator(`${OPTION} .t`).allTextContents();
        assert.equal(titles[0], "Shipping to Germany");
        const msg = await w.page.locator(`${BAR} .msg`).textContent();
        assert.doesNotMatch(msg ?? "", /busy/);
        await shot(w.page, "live-question.png");
        await w.done();
      },
    );
  } finally {
    await browser.close();
    await host.close();
    await api.close();
  }
});
