/**
 * The dashboard's search tuning panel in headless Chromium against the real app on loopback:
 * a synonym checked as it is typed, previewed, saved (a search changes), undone; a pin; and a
 * suggested fix applied from the site's own analytics.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { staleBundles } from "../../scripts/build.ts";
import {
  browserSuite,
  CHROMIUM_ARGS,
  loadPlaywright,
  makeSite,
  SCREENSHOTS,
  serveApp,
  sessionCookie,
} from "../widget/browser_helpers.ts";
import { SHOP } from "../levers/helpers.ts";

browserSuite("browser - the search tuning panel of the dashboard", async (t, executablePath) => {
  const app = await serveApp();
  const { chromium } = await loadPlaywright();
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  const errors: string[] = [];
  const search = async (q: string) => {
    const res = await app.call(`/api/search?key=${site.publicKey}&q=${encodeURIComponent(q)}`);
    const body = await res.json();
    return body.results.map((r: { url: string }) => r.url.split("#")[0]) as string[];
  };
  const site = await makeSite(app.call, { plan: "pro", pages: SHOP });
  try {
    assert.deepEqual((await staleBundles()).map((b) => b.out), [], "run deno task build");
    // Visitors searched "hooodie" three times: a suggestion to make.
    for (let i = 0; i < 3; i++) await search("hooodie");
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const cookie = await sessionCookie(app.call, app.origin, site.adminKey);
    await ctx.addCookies([{ name: "sitesearch_session", value: cookie, url: app.origin }]);
    const page: Page = await ctx.newPage();
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(app.origin + "/dashboard");
    await page.waitForSelector("html[data-islands=hydrated]");
    const panel = page.locator("#levers");

    await t.step(
      "a synonym is checked as it is typed and previewed before it is saved",
      async () => {
        await panel.locator("#syn-words").fill("jumper, one two three four five");
        await panel.locator("[data-field-error]", {
          hasText: "Word 2 may be a phrase of at most 4 words.",
        }).waitFor();
        assert.ok(await panel.locator("button", { hasText: "Add synonym" }).isDisabled());
        await panel.locator("#syn-words").fill("jumper, hoodies");
        await panel.locator("[data-field-error]").waitFor({ state: "detached" });
        await panel.locator("[data-preview=after] li", { hasText: "Hoodies" }).waitFor();
        assert.match(
          await panel.locator("[data-preview=before]").textContent() ?? "",
          /Nothing found/,
        );
        assert.deepEqual(await search("jumper"), [], "nothing saved yet");
      },
    );

    await t.step(
      "saving the synonym changes the search at once, and undo takes it back",
      async () => {
        await panel.locator("button", { hasText: "Add synonym" }).click();
        await panel.locator(".status.ok", { hasText: "Saved" }).waitFor();
        await panel.locator("[aria-label=Synonyms] li", { hasText: "jumper ⇄ hoodies" }).waitFor();
        assert.deepEqual(await search("jumper"), ["/hoodies"]);
        await panel.screenshot({ path: new URL("levers-synonyms.png", SCREENSHOTS).pathname });
        await panel.locator("button", { hasText: "Undo last change" }).click();
        await panel.locator(".status.ok", { hasText: "Undone." }).waitFor();
        assert.equal(await panel.locator("[aria-label=Synonyms] li").count(), 0);
        assert.deepEqual(await search("jumper"), []);
      },
    );

    await t.step("a curation pins a page first, marked in the preview and in search", async () => {
      await panel.locator("[role=tab]", { hasText: "Curations" }).click();
      await panel.locator("#cur-query").fill("refund");
      await panel.locator("#cur-pin").fill("/contact");
      await panel.locator("[data-preview=after] li", { hasText: "Pinned" }).first().waitFor();
      await panel.locator("button", { hasText: "Add curation" }).click();
      await panel.locator(".status.ok", { hasText: "Saved" }).waitFor();
      assert.equal((await search("refund"))[0], "/contact");
    });

    await t.step(
      "an answer pin is previewed as a visitor sees it, saved, served, and the self-check runs",
      async () => {
        await panel.locator("[role=tab]", { hasText: "Answers" }).click();
        await panel.locator("#ans-query").fill("Do you sell wool hoodies?");
        await panel.locator("#ans-text").fill("No: our hoodies are brushed cotton.");
        await panel.locator("#ans-sources").fill("/nowhere");
        await panel.locator("[aria-label='What a visitor sees']", {
          hasText: "No: our hoodies are brushed cotton.",
        }).waitFor();
        await panel.locator("button", { hasText: "Pin answer" }).click();
        await panel.locator(".status.error", { hasText: "must be a page of the site" }).waitFor();
        await panel.locator("#ans-sources").fill("/hoodies");
        await panel.locator("button", { hasText: "Pin answer" }).click();
        await panel.locator(".status.ok", { hasText: "answers use it now" }).waitFor();
        await panel.locator("[aria-label='Answer pins'] li", { hasText: "wool hoodies" }).waitFor();
        const res = await app.call("/api/summarize", {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-API-Key": site.publicKey },
          body: JSON.stringify({ query: "do you sell wool hoodies" }),
        });
        const body = await res.json();
        assert.equal(body.answer, "No: our hoodies are brushed cotton.");
        assert.equal(body.pinned, true);
        // The list outlives a switch of tabs.
        await panel.locator("[role=tab]", { hasText: "Curations" }).click();
        await panel.locator("[role=tab]", { hasText: "Answers" }).click();
        await panel.locator("[aria-label='Answer pins'] li", { hasText: "wool hoodies" }).waitFor();
        await panel.locator("button", { hasText: "Run self-check" }).click();
        await panel.locator("[data-selfcheck] tbody tr").first().waitFor();
        await panel.screenshot({ path: new URL("levers-answers.png", SCREENSHOTS).pathname });
      },
    );

    await t.step(
      "a suggested synonym is applied and the query's new first results show",
      async () => {
        await panel.locator("[role=tab]", { hasText: "Suggestions" }).click();
        const item = panel.locator("[data-suggestion=synonym]", { hasText: "hooodie" });
        await item.waitFor();
        assert.match(await item.textContent() ?? "", /3 searches for “hooodie” found nothing/);
        await item.locator("button", { hasText: "Apply" }).click();
        await panel.locator("[data-applied] [data-preview=after] li", {
          hasText: "Hoodies",
        })
          .waitFor();
        assert.equal(await panel.locator("[data-suggestion]").count(), 0);
        await panel.screenshot({ path: new URL("levers-suggestions.png", SCREENSHOTS).pathname });
        assert.deepEqual(await search("hooodie"), ["/hoodies"]);
      },
    );
    await t.step("on a phone in dark mode the panel fits the screen", async () => {
      const phone = await browser.newContext({
        viewport: { width: 390, height: 800 },
        colorScheme: "dark",
      });
      await phone.addCookies([{ name: "sitesearch_session", value: cookie, url: app.origin }]);
      const small = await phone.newPage();
      small.on("pageerror", (e) => errors.push(String(e)));
      await small.goto(app.origin + "/dashboard");
      await small.waitForSelector("html[data-islands=hydrated]");
      const tuning = small.locator("#levers");
      await tuning.locator("[role=tab]", { hasText: "Curations" }).click();
      await tuning.locator("#cur-query").fill("refund policy");
      // A curation that neither pins nor hides is refused as it is typed.
      await tuning.locator("[data-field-error]", { hasText: "pins or hides" }).waitFor();
      await tuning.locator("#cur-hide").fill("/old/refunds");
      await tuning.locator("[data-preview=after] li").first().waitFor();
      const overflow = await small.evaluate(() =>
        document.documentElement.scrollWidth - document.documentElement.clientWidth
      );
      assert.equal(overflow, 0, "no sideways scrolling");
      await tuning.screenshot({ path: new URL("levers-dark-390.png", SCREENSHOTS).pathname });
      await phone.close();
    });
    assert.deepEqual(errors, []);
    await ctx.close();
  } finally {
    await browser.close();
    await app.close();
  }
});
