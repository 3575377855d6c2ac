/**
 * The curations of the dashboard's search tuning in headless Chromium against the real app on
 * loopback, as a new owner of a docs site uses them: a section pinned, a wrong one said before
 * saving, a curation changed in place, a second one for its query refused in plain words,
 * "Saved" gone when the owner moves on, and the tabs on one line on a phone.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
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
import { ANCHORED_DOCS } from "../fixtures/anchored_docs.ts";

const DOCS = ANCHORED_DOCS;

async function dashboard(browser: Browser, origin: string, cookie: string, width: number) {
  const ctx = await browser.newContext({ viewport: { width, height: 900 } });
  await ctx.addCookies([{ name: "sitesearch_session", value: cookie, url: origin }]);
  const page: Page = await ctx.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(origin + "/dashboard");
  await page.waitForSelector("html[data-islands=hydrated]");
  return { ctx, page, panel: page.locator("#levers"), errors };
}

browserSuite("browser - curations in the search tuning panel", async (t, executablePath) => {
  const app = await serveApp();
  const { chromium } = await loadPlaywright();
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  const site = await makeSite(app.call, { plan: "pro", pages: DOCS });
  const first = async (q: string) => {
    const res = await app.call(`/api/search?key=${site.publicKey}&q=${encodeURIComponent(q)}`);
    return (await res.json()).results[0]?.url as string | undefined;
  };
  const stored = async () => {
    const res = await app.call(`/api/admin/sites/${site.id}/curations`, {
      headers: { Authorization: `Bearer ${site.adminKey}` },
    });
    return (await res.json()).curations as { id: string; query: string; pin: string[] }[];
  };
  try {
    assert.deepEqual((await staleBundles()).map((b) => b.out), [], "run deno task build");
    const cookie = await sessionCookie(app.call, app.origin, site.adminKey);
    const { ctx, panel, errors } = await dashboard(browser, app.origin, cookie, 1280);
    const before = await first("filters");
    assert.notEqual(before, "/api.html#custom-filters");

    await t.step(
      "a pinned section that is not there, or a page the site lacks, is said before saving",
      async () => {
        await panel.locator("[role=tab]", { hasText: "Curations" }).click();
        await panel.locator("#cur-query").fill("filters");
        await panel.locator("#cur-pin").fill("/api.html#custom-filter");
        await panel.locator("[data-field-error]", {
          hasText:
            "The curation for “filters” pins /api.html#custom-filter, but /api.html has no section #custom-filter",
        }).waitFor();
        assert.ok(await panel.locator("button", { hasText: "Add curation" }).isDisabled());
        await panel.locator("#cur-pin").fill("/gone.html");
        await panel.locator("[data-draft-warning]", {
          hasText: "/gone.html is not a page of the site",
        }).waitFor();
        assert.equal(await panel.locator("[data-field-error]").count(), 0);
        assert.deepEqual(await stored(), [], "nothing saved");
        assert.equal(await first("filters"), before);
      },
    );

    await t.step("a pinned section is previewed and saved: the result links it", async () => {
      await panel.locator("#cur-pin").fill("/api.html#custom-filters");
      await panel.locator("[data-preview=after] li", { hasText: "/api.html#custom-filters" })
        .filter({ hasText: "Pinned" }).waitFor();
      assert.equal(await panel.locator("[data-draft-warning]").count(), 0);
      await panel.locator("button", { hasText: "Add curation" }).click();
      await panel.locator(".status.ok", { hasText: "Saved" }).waitFor();
      await panel.locator("[aria-label=Curations] li", { hasText: "/api.html#custom-filters" })
        .waitFor();
      assert.equal(await first("filters"), "/api.html#custom-filters");
      await panel.screenshot({ path: new URL("curations-saved-1280.png", SCREENSHOTS).pathname });
    });

    await t.step("'Saved' goes away when the owner switches tabs, and by itself", async () => {
      await panel.locator("[role=tab]", { hasText: "Synonyms" }).click();
      assert.equal(await panel.locator(".status.ok").count(), 0);
      await panel.locator("[role=tab]", { hasText: "Curations" }).click();
      assert.equal(await panel.locator(".status.ok").count(), 0);
    });

    await t.step(
      "a second curation for the query says there is one already and opens it to edit in place",
      async () => {
        const [saved] = await stored();
        await panel.locator("#cur-query").fill("Filters");
        await panel.locator("#cur-pin").fill("/guide.html");
        const twin = panel.locator("[data-twin]");
        await twin.waitFor();
        assert.equal(
          (await twin.textContent())?.replace("Edit it", "").trim(),
          "There is a curation for “filters” already.",
        );
        assert.doesNotMatch(await panel.textContent() ?? "", /curations\[\d/);
        assert.ok(await panel.locator("button", { hasText: "Add curation" }).isDisabled());
        await twin.locator("button", { hasText: "Edit it" }).click();
        await panel.locator("[data-editing]", {
          hasText: "Changing the curation for “filters”.",
        }).waitFor();
        assert.equal(await panel.locator("#cur-pin").inputValue(), "/api.html#custom-filters");
        await panel.locator("#cur-pin").fill("/guide.html#filters");
        await panel.locator("[data-preview=after] li", { hasText: "/guide.html#filters" })
          .filter({ hasText: "Pinned" }).waitFor();
        await panel.screenshot({ path: new URL("curations-edit-1280.png", SCREENSHOTS).pathname });
        await panel.locator("button", { hasText: "Save changes" }).click();
        await panel.locator(".status.ok", { hasText: "Saved" }).waitFor();
        await panel.locator("[data-editing]").waitFor({ state: "detached" });
        const after = await stored();
        assert.equal(after.length, 1, "changed in place, not added");
        assert.equal(after[0].id, saved.id);
        assert.deepEqual(after[0].pin, ["/guide.html#filters"]);
        assert.equal(await panel.locator("[aria-label=Curations] li").count(), 1);
        assert.equal(await first("filters"), "/guide.html#filters");
        // Left alone, "Saved" goes after a few seconds.
        await panel.locator(".status.ok").waitFor({ state: "detached", timeout: 8_000 });
      },
    );
    assert.deepEqual(errors, []);
    await ctx.close();

    await t.step("at 390 px the tuning tabs stay on one line", async () => {
      const phone = await dashboard(browser, app.origin, cookie, 390);
      const tabs = phone.panel.locator("[role=tab]");
      assert.equal(await tabs.count(), 4);
      const boxes = await Promise.all((await tabs.all()).map((x) => x.boundingBox()));
      const tops = new Set(boxes.map((b) => Math.round(b!.y)));
      assert.equal(tops.size, 1, `tabs at ${[...tops]}`);
      const strip = await phone.panel.locator("[role=tablist]").boundingBox();
      assert.ok(strip!.height < boxes[0]!.height * 1.5, `strip ${strip!.height}px high`);
      await phone.panel.locator("[role=tablist]").screenshot({
        path: new URL("curations-tabs-390.png", SCREENSHOTS).pathname,
      });
      // Each tab is reached within the strip (scrolled, where a screen is narrower), never the page.
      await tabs.last().click();
      await phone.panel.locator("[role=tab][aria-selected=true]", { hasText: "Suggestions" })
        .waitFor();
      const overflow = await phone.page.evaluate(() =>
        document.documentElement.scrollWidth - document.documentElement.clientWidth
      );
      assert.equal(overflow, 0, "no sideways scrolling of the page");
      await phone.panel.locator("[role=tab]", { hasText: "Curations" }).click();
      await phone.panel.locator("button", { hasText: "Edit" }).first().click();
      await phone.panel.locator("[data-editing]").waitFor();
      await phone.panel.screenshot({
        path: new URL("curations-edit-390.png", SCREENSHOTS).pathname,
      });
      assert.deepEqual(phone.errors, []);
      await phone.ctx.close();
    });

    await t.step(
      "a long list grows with Show more on a phone, never as a box scrolling inside",
      async () => {
        const synonyms = Array.from(
          { length: 25 },
          (_, i) => ({ words: [`kiln${i}`, `oven${i}`] }),
        );
        const put = await app.call(`/api/admin/sites/${site.id}/synonyms`, {
          method: "PUT",
          headers: { Authorization: `Bearer ${site.adminKey}`, "Content-Type": "application/json" },
          body: JSON.stringify({ synonyms }),
        });
        assert.equal(put.status, 200, await put.text());
        const phone = await dashboard(browser, app.origin, cookie, 390);
        await phone.panel.locator("[role=tab]", { hasText: "Synonyms" }).click();
        const rows = phone.panel.locator("ul.rows > li");
        await rows.first().waitFor();
        assert.equal(await rows.count(), 20);
        const list = phone.panel.locator("ul.rows");
        const inner = await list.evaluate((el) => el.scrollHeight - el.clientHeight);
        assert.equal(inner, 0, "the list does not scroll inside itself");
        await phone.panel.locator("button", { hasText: "Show more" }).click();
        assert.equal(await rows.count(), 25);
        assert.equal(await phone.panel.locator("button", { hasText: "Show more" }).count(), 0);
        assert.deepEqual(phone.errors, []);
        await phone.ctx.close();
      },
    );
  } finally {
    await browser.close();
    await app.close();
  }
});
