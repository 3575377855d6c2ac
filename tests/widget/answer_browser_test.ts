/**
 * The AI answer box of results.js in headless Chromium, on a host page of another origin:
 * feedback thumbs, answers kept across reloads, and a plain line when credits are used up.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import {
  browserSuite,
  CHROMIUM_ARGS,
  loadPlaywright,
  makeSite,
  resultsTag,
  serveApp,
  serveHost,
} from "./browser_helpers.ts";
import { OPERATOR } from "../helpers.ts";
import { feedbackSummary } from "../../lib/analytics/feedback.ts";

const RESULTS = "[data-sitesearch=results]";
const PAGES = [
  { url: "/a", title: "Shipping to Germany", body: "Shipping to Germany takes two days with DHL." },
  { url: "/b", title: "Returns", body: "Unopened bags can be returned within 30 days." },
];

browserSuite(
  "browser - the AI answer box: thumbs, kept answers, paused credits",
  async (t, executablePath) => {
    const api = await serveApp();
    const host = serveHost();
    const { chromium } = await loadPlaywright();
    const browser: Browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
    try {
      const site = await makeSite(api.call, { plan: "pro", pages: PAGES });
      host.pages.set("/results", {
        head: resultsTag(api.origin, site.publicKey, { "data-summary": "true" }),
        body: `<main><h1>Search results</h1><div data-site-search-results></div></main>`,
      });
      const used = async () =>
        (await (await api.call(`/api/admin/sites/${site.id}/usage`, {
          headers: { Authorization: `Bearer ${site.adminKey}` },
        })).json()).aiCredits.used as number;
      const context = await browser.newContext();
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      const answerText = page.locator(`${RESULTS} section.answer .atext:not(.busy)`).first();
      const open = (q: string) => page.goto(`${host.origin}/results?q=${encodeURIComponent(q)}`);

      await t.step("an answer has thumbs under it that store the visitor's vote", async () => {
        await open("how long does shipping to germany take");
        await answerText.waitFor();
        assert.match((await answerText.textContent())!, /two days/);
        const up = page.locator(`${RESULTS} .fb button[aria-label=Yes]`);
        // Icons are inline SVG: no emoji, which shows as an empty box without an emoji font.
        assert.equal(await page.locator(`${RESULTS} .fb button svg`).count(), 2);
        assert.doesNotMatch(
          await page.locator(`${RESULTS} .fb`).textContent() ?? "",
          /\p{Extended_Pictographic}/u,
        );
        await up.click();
        await page.locator(`${RESULTS} .fb`, { hasText: "Thanks for the feedback." }).waitFor();
        for (let i = 0; i < 50 && (await feedbackSummary(api.kv, site.id, 0)).helpful === 0; i++) {
          await new Promise((r) => setTimeout(r, 20));
        }
        assert.equal((await feedbackSummary(api.kv, site.id, 0)).helpful, 1);
        assert.equal(await used(), 1);
      });

      await t.step("a reload shows the same answer at once and spends no credit", async () => {
        await page.reload();
        await answerText.waitFor();
        assert.match((await answerText.textContent())!, /two days/);
        assert.equal(await used(), 1, "the kept answer cost nothing");
      });

      await t.step("a question the site does not answer says so in the box, for free", async () => {
        await open("xqzv blorptang wuzzle");
        await answerText.waitFor();
        // One plain sentence: no thumbs, no follow-up field, no disclaimer under it.
        assert.equal(await answerText.textContent(), "No answer found on this site.");
        assert.equal(await page.locator(`${RESULTS} section.answer`).isVisible(), true);
        assert.equal(await page.locator(`${RESULTS} .fb`).count(), 0, "no thumbs");
        assert.equal(await page.locator(`${RESULTS} .follow`).isVisible(), false);
        assert.equal(await page.locator(`${RESULTS} .note`).isVisible(), false);
        assert.equal(await used(), 1);
      });

      await t.step(
        "with credits used up the page says AI answers are paused, results stay",
        async () => {
          const res = await api.call(`/api/admin/sites/${site.id}`, {
            method: "PATCH",
            headers: { Authorization: `Bearer ${OPERATOR}`, "Content-Type": "application/json" },
            body: JSON.stringify({ limits: { aiCreditsPerMonth: 1 } }),
          });
          assert.equal(res.status, 200);
          await res.body?.cancel();
          await open("can unopened bags be returned");
          const box = page.locator(`${RESULTS} section.answer`);
          await box.filter({ hasText: "AI answers are paused for this site this month" }).waitFor();
          assert.ok(await page.locator(`${RESULTS} .hit`).first().isVisible(), "results are shown");
          assert.equal(await page.locator(`${RESULTS} .fb`).count(), 0, "no thumbs for no answer");
        },
      );
      await context.close();
      assert.deepEqual(errors, []);
    } finally {
      await browser.close();
      await host.close();
      await api.close();
    }
  },
);
