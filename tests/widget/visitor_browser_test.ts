/**
 * What a visitor sees on both results pages (results.js on a host page of another origin, and
 * the hosted islands page), in headless Chromium: the correction notice, one of a description
 * and a snippet that repeat each other, a thumbs down's comment reaching the owner's analytics,
 * the service's header and footer in the site's language, the answer folded on a phone, and the
 * landing page's two script tags and Home link at 390 px. Screenshots land in /tmp/shots-visitor/.
 */
import assert from "node:assert/strict";
import type { Browser, Locator, Page } from "playwright-core";
import { TABLES } from "../../widget/i18n/all.ts";
import { OPERATOR } from "../helpers.ts";
import { englishLeaks } from "../i18n/leaks.ts";
import {
  browserSuite,
  CHROMIUM_ARGS,
  loadPlaywright,
  makeSite,
  RESULTS,
  resultsTag,
  serveApp,
  serveHost,
} from "./browser_helpers.ts";

const SHOTS = "/tmp/shots-visitor/";

// A page whose description is the start of its text (a snippet then repeats it), one whose
// description says something else, and long pages an answer draws several sentences from.
const REPEATED = "Shipping to Germany takes two days with DHL from our Hamburg roastery.";
const PAGES = [
  {
    url: "/germany",
    title: "Shipping to Germany",
    description: REPEATED,
    body: `${REPEATED} Parcels are tracked from the door.`,
  },
  {
    url: "/austria",
    title: "Shipping to Austria",
    description: "Rates and times for Austrian orders.",
    body: "Shipping to Austria takes four days with the post; parcels over 2 kg cost €9.",
  },
  ...["Costs", "Times", "Packaging", "Returns"].map((topic, i) => ({
    url: `/shipping-${topic.toLowerCase()}`,
    title: `Shipping ${topic}`,
    body: Array.from(
      { length: 6 },
      (_, j) =>
        `Shipping ${topic.toLowerCase()} rule ${j + 1}: every shipping order of ours ` +
        `follows this rule for shipping parcels to customers in zone ${i + j + 1}.`,
    ).join(" "),
  })),
];

/** Waits until `check` holds (the server writes a vote after the browser says thanks). */
async function eventually(check: () => Promise<boolean>, what: string) {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 30));
  }
  assert.fail(`never: ${what}`);
}

/** True when the element's top edge is inside the first screen. */
const onFirstScreen = async (page: Page, l: Locator) => {
  const box = await l.boundingBox();
  return !!box && box.y + 20 < page.viewportSize()!.height;
};

browserSuite("browser - what a visitor sees on both results pages", async (t, executablePath) => {
  const api = await serveApp();
  const host = serveHost();
  const { chromium } = await loadPlaywright();
  const browser: Browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  await Deno.mkdir(SHOTS, { recursive: true });
  const errors: string[] = [];
  const open = async (width: number, url: string) => {
    const ctx = await browser.newContext({ viewport: { width, height: 844 } });
    const page = await ctx.newPage();
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(url);
    return { ctx, page };
  };
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: false });
  try {
    const site = await makeSite(api.call, { plan: "pro", pages: PAGES });
    host.pages.set("/results", {
      head: resultsTag(api.origin, site.publicKey, { "data-summary": "true" }),
      body: `<main><h1>Search results</h1><div data-site-search-results></div></main>`,
    });
    const hosted = (q: string) =>
      `${api.origin}/search-results?key=${site.publicKey}&q=${encodeURIComponent(q)}`;
    const embedded = (q: string) => `${host.origin}/results?q=${encodeURIComponent(q)}`;
    const hydrated = (page: Page) => page.waitForSelector("html[data-islands=hydrated]");

    await t.step(
      "the hosted page says which words it searched for, as results.js does",
      async () => {
        const { ctx, page } = await open(1280, hosted("shiping germany"));
        const fix = page.locator(".results .fix");
        assert.equal(await fix.textContent(), "Showing results for “shipping germany”");
        await hydrated(page);
        // A new search from the box, without a reload, says it too, and a right one does not.
        await page.locator("#search-q").fill("shiping austria");
        await page.locator("#search-q").press("Enter");
        await page.locator(".results .fix", { hasText: "“shipping austria”" }).waitFor();
        await page.locator("#search-q").fill("shipping austria");
        await page.locator("#search-q").press("Enter");
        await page.locator(".results .fix").waitFor({ state: "detached" });
        await ctx.close();
        const embed = await open(1280, embedded("shiping germany"));
        const fixed = embed.page.locator(`${RESULTS} .fix`);
        await fixed.waitFor();
        assert.equal(await fixed.textContent(), "Showing results for “shipping germany”");
        await embed.ctx.close();
      },
    );

    await t.step(
      "a snippet that repeats its description shows once; another shows both",
      async () => {
        const texts = async (hit: Locator, selectors: string) =>
          await hit.locator(selectors).allTextContents();
        const { ctx, page } = await open(1280, hosted("germany"));
        const germany = page.locator(".hit", { hasText: "Shipping to Germany" });
        const shown = await texts(germany, ".desc, .snippet");
        assert.equal(shown.length, 1, `one of them: ${JSON.stringify(shown)}`);
        assert.match(shown[0], /two days with DHL/);
        await page.locator("#search-q").waitFor();
        await shot(page, "hosted-one-of-description-snippet-1280");
        await page.goto(hosted("austria"));
        const austria = page.locator(".hit", { hasText: "Shipping to Austria" });
        assert.equal(
          await austria.locator(".desc").textContent(),
          "Rates and times for Austrian orders.",
        );
        assert.match((await austria.locator(".snippet").textContent())!, /four days/);
        await ctx.close();

        const embed = await open(1280, embedded("germany"));
        const hit = embed.page.locator(`${RESULTS} .hit`, { hasText: "Shipping to Germany" });
        await hit.waitFor();
        const once = await texts(hit, ".desc, .snip");
        assert.equal(once.length, 1, `one of them: ${JSON.stringify(once)}`);
        await embed.page.goto(embedded("austria"));
        const other = embed.page.locator(`${RESULTS} .hit`, { hasText: "Shipping to Austria" });
        await other.waitFor();
        assert.equal(await other.locator(".desc").count(), 1);
        assert.equal(await other.locator(".snip").count(), 1);
        await shot(embed.page, "embedded-description-and-snippet-1280");
        await embed.ctx.close();
      },
    );

    const analyticsFeedback = async () =>
      (await (await api.call(`/api/admin/sites/${site.id}/analytics`, {
        headers: { Authorization: `Bearer ${site.adminKey}` },
      })).json()).feedback as {
        unhelpful: number;
        recent: { comment: string; helpful: boolean; question: string }[];
      };

    await t.step("a thumbs down on results.js's answer takes a comment to the owner", async () => {
      const { ctx, page } = await open(1280, embedded("how long does shipping to germany take"));
      const down = page.locator(`${RESULTS} .fb button[aria-label=No]`);
      await down.click();
      const field = page.getByLabel("What was missing or wrong? (optional)");
      await field.waitFor();
      assert.equal(await field.evaluate((e) => e.matches(":focus")), true, "the field has focus");
      assert.equal(await field.getAttribute("maxlength"), "500");
      await field.fill("It does not say what DHL costs.");
      await shot(page, "embedded-thumbs-down-comment-1280");
      await page.locator(`${RESULTS} .fbc button[type=submit]`, { hasText: "Send" }).click();
      await page.locator(`${RESULTS} .fb`, { hasText: "Thanks for the feedback." }).waitFor();
      await eventually(
        async () =>
          (await analyticsFeedback()).recent.some((r) =>
            r.comment === "It does not say what DHL costs."
          ),
        "the comment in the owner's analytics",
      );
      const fb = await analyticsFeedback();
      const mine = fb.recent.find((r) => r.comment === "It does not say what DHL costs.")!;
      assert.equal(mine.helpful, false);
      assert.match(mine.question, /shipping to germany/);
      assert.equal(fb.unhelpful, 1, "the bare vote and the comment are one vote");
      await ctx.close();
    });

    await t.step("a thumbs down on the hosted page's answer takes a comment too", async () => {
      const { ctx, page } = await open(1280, hosted("how long does shipping to austria take"));
      await hydrated(page);
      await page.locator(".answer .feedback button[aria-label=No]").click();
      const field = page.getByLabel("What was missing or wrong? (optional)");
      await field.waitFor();
      assert.equal(await field.evaluate((e) => e.matches(":focus")), true, "the field has focus");
      await field.pressSequentially("Which post service?");
      await shot(page, "hosted-thumbs-down-comment-1280");
      await page.locator(".answer .feedback-comment button", { hasText: "Send" }).click();
      await page.locator(".answer .feedback", { hasText: "Thanks for the feedback." }).waitFor();
      await eventually(
        async () =>
          (await analyticsFeedback()).recent.some((r) => r.comment === "Which post service?"),
        "the hosted page's comment in the owner's analytics",
      );
      // Skip sends the bare vote down and nothing else.
      await page.goto(hosted("what do returns cost"));
      await hydrated(page);
      await page.locator(".answer .feedback button[aria-label=No]").click();
      await page.locator(".answer .feedback-comment button", { hasText: "Skip" }).click();
      await page.locator(".answer .feedback", { hasText: "Thanks for the feedback." }).waitFor();
      await eventually(async () => (await analyticsFeedback()).unhelpful === 3, "three votes");
      assert.equal((await analyticsFeedback()).recent.length, 2, "no comment from a skip");
      await ctx.close();
    });

    await t.step(
      "on a phone the answer is folded and results show on the first screen",
      async () => {
        for (
          const [name, url, root] of [["hosted", hosted, ""], [
            "embedded",
            embedded,
            RESULTS,
          ]] as const
        ) {
          const { ctx, page } = await open(390, url("shipping rules for orders"));
          const text = page.locator(`${root} .answer :is(.answer-text, .atext:not(.busy))`.trim())
            .first();
          await text.waitFor();
          const more = page.locator(`${root} .answer button.more`.trim());
          await more.waitFor();
          assert.equal(await more.textContent(), "Show more");
          assert.equal(await more.getAttribute("aria-expanded"), "false");
          const firstHit = page.locator(`${root} .hit`.trim()).first();
          await firstHit.waitFor();
          assert.ok(await onFirstScreen(page, firstHit), `${name}: a result on the first screen`);
          await shot(page, `${name}-answer-folded-390`);
          // The whole answer is longer than its first lines, and Show more shows it all.
          const folded = (await text.boundingBox())!.height;
          await more.click();
          assert.equal(await more.getAttribute("aria-expanded"), "true");
          assert.equal(await more.textContent(), "Show less");
          assert.ok((await text.boundingBox())!.height > folded, `${name}: the answer opens`);
          await shot(page, `${name}-answer-open-390`);
          const wide = await open(1280, url("shipping rules for orders"));
          await wide.page.locator(`${root} .answer :is(.answer-text, .atext:not(.busy))`.trim())
            .first().waitFor();
          assert.equal(
            await wide.page.locator(`${root} .answer button.more`.trim()).isVisible(),
            false,
            `${name}: nothing folded on a wide screen`,
          );
          await shot(wide.page, `${name}-answer-1280`);
          await wide.ctx.close();
          await ctx.close();
        }
      },
    );

    await t.step("on a German site the hosted page's header and footer are German", async () => {
      const res = await api.call(`/api/admin/sites/${site.id}`, {
        method: "PATCH",
        headers: { Authorization: `Bearer ${OPERATOR}`, "Content-Type": "application/json" },
        body: JSON.stringify({ lang: "de" }),
      });
      assert.equal(res.status, 200);
      await res.body?.cancel();
      for (const width of [1280, 390]) {
        const { ctx, page } = await open(width, hosted("versand"));
        assert.equal(await page.getAttribute("html", "lang"), "de");
        const nav = page.locator("header.top nav");
        assert.equal(await nav.getAttribute("aria-label"), TABLES.de.navLabel);
        assert.deepEqual(
          await nav.locator("a").allTextContents(),
          (["navHome", "navDashboard", "navApiReference", "navResultsDemo", "navDemoSite"] as const)
            .map((k) => TABLES.de[k]),
        );
        const foot = (await page.locator("footer.foot").textContent())!;
        assert.ok(foot.includes(TABLES.de.footerTagline), foot);
        assert.deepEqual(
          englishLeaks(
            (await page.locator("header.top, footer.foot").allInnerTexts()).join("\n"),
            "de",
          ),
          [],
        );
        await shot(page, `hosted-german-${width}`);
        await ctx.close();
      }
      // The owner's own pages stay as they are: the dashboard is English.
      const dash = await (await api.call("/dashboard")).text();
      assert.match(dash, /<nav aria-label="Main"><a href="\/"[^>]*>Home<\/a>/);
    });

    await t.step("the landing page shows both script tags and keeps Home at 390 px", async () => {
      for (const width of [1280, 390]) {
        const { ctx, page } = await open(width, `${api.origin}/`);
        const code = await page.locator("#embed ~ pre code, section:has(#embed) pre code")
          .allTextContents();
        assert.equal(code.length, 2, "two tags");
        assert.match(code[0], /<script async src="[^"]+\/widget\.js"[^]*data-key=/);
        assert.match(code[1], /<script defer src="[^"]+\/results\.js"[^]*data-summary="true"/);
        const home = page.locator("header.top nav a", { hasText: "Home" });
        assert.equal(await home.isVisible(), true, `Home at ${width} px`);
        const links = await page.locator("header.top nav a").all();
        for (const a of links) {
          const box = (await a.boundingBox())!;
          assert.ok(box.x >= 0 && box.x + box.width <= width, `${await a.textContent()} fits`);
        }
        const sideways = await page.evaluate(() =>
          document.documentElement.scrollWidth - innerWidth
        );
        assert.ok(sideways <= 0, `the landing page scrolls sideways by ${sideways} px`);
        await page.locator("#embed").scrollIntoViewIfNeeded();
        await page.screenshot({ path: `${SHOTS}landing-${width}.png`, fullPage: true });
        // The dashboard shares the header: all its links fit too.
        await page.goto(`${api.origin}/dashboard`);
        for (const a of await page.locator("header.top nav a").all()) {
          assert.equal(await a.isVisible(), true);
          const box = (await a.boundingBox())!;
          assert.ok(box.x + box.width <= width, `dashboard: ${await a.textContent()} fits`);
        }
        await shot(page, `dashboard-header-${width}`);
        await ctx.close();
      }
    });
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await host.close();
    await api.close();
  }
});
