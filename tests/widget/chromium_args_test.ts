/**
 * The browser the suite launches: Playwright's own switches kept, and no page a test did not
 * open. Chromium reads only the last `--disable-features` on its command line, so the suite's
 * (CHROMIUM_ARGS) must name every feature Playwright's, given before it, turns off.
 */
import assert from "node:assert/strict";
import { browserSuite, CHROMIUM_ARGS, loadPlaywright } from "./browser_helpers.ts";

browserSuite("chromium - the suite's switches keep Playwright's", async (t, executablePath) => {
  const { chromium } = await loadPlaywright();
  // --enable-automation lets the browser tell its command line (Browser.getBrowserCommandLine).
  const args = [...CHROMIUM_ARGS, "--enable-automation"];
  const browser = await chromium.launch({ executablePath, args });
  try {
    const cdp = await browser.newBrowserCDPSession();
    await t.step("the last --disable-features names every feature an earlier one did", async () => {
      const { arguments: argv } = await cdp.send("Browser.getBrowserCommandLine");
      const lists = argv.filter((a) => a.startsWith("--disable-features="))
        .map((a) => a.slice("--disable-features=".length).split(","));
      assert.ok(lists.length >= 2, `Playwright's and ours: ${JSON.stringify(lists)}`);
      const last = new Set(lists.at(-1));
      const lost = lists.slice(0, -1).flat().filter((f) => f && !last.has(f));
      assert.deepEqual(lost, [], "features Playwright turns off that ours would turn on again");
    });
    await t.step("a context opens its page and nothing else", async () => {
      const ctx = await browser.newContext();
      const page = await ctx.newPage();
      await page.goto("about:blank");
      const { targetInfos } = await cdp.send("Target.getTargets");
      const others = targetInfos.filter((i) => i.type !== "page").map((i) => i.url);
      assert.deepEqual(others, [], "pages the browser opened for itself");
      await ctx.close();
    });
  } finally {
    await browser.close();
  }
});
