/**
 * The islands results page and the dashboard in headless Chromium, against the real app on
 * loopback with a fake model, a fixture site to crawl, and a second origin playing an attacker.
 * Screenshots of every page, light and dark, 1280 and 390 px wide, land in tests/.screenshots/.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { createApp } from "../../app.ts";
import { createOpenAISummarizer } from "../../lib/answers/model.ts";
import { staleBundles } from "../../scripts/build.ts";
import { html, serveSite } from "../fixtures/crawl_site.ts";
import { startFakeLLM } from "../fixtures/fake_llm.ts";
import { OPERATOR } from "../helpers.ts";
import {
  browserSuite,
  CHROMIUM_ARGS,
  loadPlaywright,
  makeSite,
  resultsTag,
  SCREENSHOTS,
  serveHost,
  sessionCookie,
  widgetTag,
} from "../widget/browser_helpers.ts";

const PAGES = [
  { url: "/kettles", title: "Quiet kettles", body: "Our kettles boil water quietly and fast." },
  { url: "/descale", title: "Descaling guide", body: "Descale a kettle monthly with citric acid." },
  ...Array.from({ length: 14 }, (_, i) => ({
    url: `/kettle/${i}`,
    title: `Kettle model ${i}`,
    body: `Kettle model ${i} holds ${i + 1} litres of water for tea.`,
  })),
];

browserSuite("browser - the islands results page and the dashboard", async (t, executablePath) => {
  const kv = await Deno.openKv(":memory:");
  const llm = await startFakeLLM({
    // Two sentences the page says: the answer shows the first while the second comes.
    script: {
      kind: "text",
      pieces: ["Kettles ", "boil ", "water. ", "They boil ", "it ", "fast."],
      delayMs: 250,
    },
  });
  const { app, services } = createApp({
    kv,
    operatorToken: OPERATOR,
    log: () => {},
    summarizer: createOpenAISummarizer({ apiKey: "test", baseURL: llm.url, model: "fake" }),
    crawl: { allowLoopback: true, delayMs: 150 },
    analyticsFlushMs: 60_000,
  });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const call: typeof fetch = (path, init) => fetch(origin + String(path), init);
  const attacker = serveHost();
  const fixture = serveSite(
    new Map([
      ["/robots.txt", { headers: { "Content-Type": "text/plain" }, body: "User-agent: *\n" }],
      ["/about", html("About Zephyr", "<p>Quiet kettles since 1999.</p>")],
      [
        "/",
        html(
          "Zephyr home",
          `<p>Kettles.</p>${[1, 2, 3, 4, 5].map((i) => `<a href="/p${i}">p${i}</a>`).join(" ")}`,
        ),
      ],
      ...[1, 2, 3, 4, 5].map((i) =>
        [`/p${i}`, html(`Zephyr page ${i}`, `<p>Zephyr kettle page number ${i}.</p>`)] as const
      ),
    ]),
  );
  const { chromium } = await loadPlaywright();
  const browser: Browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  await Deno.mkdir(SCREENSHOTS, { recursive: true });

  const errors: string[] = [];
  const context = async (scheme: "light" | "dark" = "light", width = 1280) => {
    const ctx = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
    ctx.on("page", (p) => p.on("pageerror", (e) => errors.push(String(e))));
    return ctx;
  };
  const bearer = (token: string, body?: unknown) => ({
    method: body === undefined ? "GET" : "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  /** A session cookie for a context, from a sign-in as the browser's form would send it. */
  const signedIn = async (ctx: BrowserContext, key: string) => {
    const value = await sessionCookie(call, origin, key);
    await ctx.addCookies([{ name: "sitesearch_session", value, url: origin }]);
  };
  const hydrated = (page: Page) => page.waitForSelector("html[data-islands=hydrated]");

  try {
    assert.deepEqual((await staleBundles()).map((b) => b.out), [], "run deno task build");
    const site = await makeSite(call, { plan: "business", pages: PAGES });
    const resultsUrl = (q: string) => `${origin}/search-results?key=${site.publicKey}&q=${q}`;

    await t.step(
      "the search box island hydrates and updates the results without a reload",
      async () => {
        const ctx = await context();
        const page = await ctx.newPage();
        await page.goto(resultsUrl("kettle"));
        await hydrated(page);
        await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
        assert.match(
          await page.locator(".results .status").textContent() ?? "",
          /^16 results for “kettle”/,
        );
        const input = page.locator("#search-q");
        await input.fill("");
        await input.pressSequentially("descal", { delay: 30 });
        await page.locator("#search-suggestions [role=option]").first().waitFor();
        assert.equal(await input.getAttribute("aria-expanded"), "true");
        assert.match(
          await page.locator("#search-suggestions").textContent() ?? "",
          /Descaling guide/,
        );
        await input.press("Enter");
        await page.waitForFunction(() =>
          document.querySelector(".results .status")?.textContent?.startsWith(
            "1 result for “descal”",
          )
        );
        assert.match(page.url(), /q=descal/);
        assert.match(await page.locator(".hit mark").first().textContent() ?? "", /^Descal/);
        // Pagination also stays on the page; Back brings the first query back.
        await input.fill("kettle");
        await input.press("Enter");
        await page.locator(".pager a", { hasText: "2" }).click();
        await page.waitForFunction(() =>
          document.querySelector(".results .status")?.textContent?.includes("Page 2")
        );
        assert.equal(await page.locator(".hit").count(), 6);
        await page.goBack();
        await page.waitForFunction(() =>
          !document.querySelector(".results .status")?.textContent?.includes("Page 2")
        );
        assert.equal(
          await page.evaluate(() => (window as unknown as { marker: number }).marker),
          42,
          "no reload",
        );
        await ctx.close();
      },
    );

    await t.step("the answer streams in, with its sources and feedback buttons", async () => {
      const ctx = await context();
      const page = await ctx.newPage();
      await page.goto(resultsUrl("how%20do%20kettles%20work"));
      const text = page.locator(".answer .answer-text").first();
      // The partial text is read where the page shows it, not by a later round trip that a
      // busy machine may make after the rest has streamed in.
      const partial = await (await page.waitForFunction(() => {
        const t = document.querySelector(".answer .answer-text")?.textContent ?? "";
        return t.startsWith("Kettles") && !t.includes("fast") && t;
      })).jsonValue();
      await page.waitForFunction(() =>
        document.querySelector(".answer .answer-text")?.textContent?.includes("fast.")
      );
      assert.notEqual(partial, await text.textContent(), "the text grew while it streamed");
      assert.equal(await text.textContent(), "Kettles boil water. They boil it fast.");
      const feedback = page.waitForRequest((r) => r.url().includes("/api/feedback"));
      const thumbs = page.locator(".feedback button");
      assert.equal(await thumbs.locator("svg").count(), 2, "thumbs are inline SVG icons");
      await page.getByRole("button", { name: "Yes", exact: true }).click();
      const sent = JSON.parse((await feedback).postData() ?? "{}");
      assert.equal(sent.helpful, true);
      assert.equal(sent.turn, 1);
      assert.match(sent.conversationId, /^cv_/);
      await page.locator(".feedback", { hasText: /Thanks|could not be sent/ }).waitFor();
      await page.fill("#followup-q", "and how fast?");
      await page.press("#followup-q", "Enter");
      await page.locator(".answer .question", { hasText: "and how fast?" }).waitFor();
      await page.waitForFunction(() =>
        document.querySelectorAll(".answer .answer-text")[1]?.textContent ===
          "Kettles boil water. They boil it fast."
      );
      const asked = llm.requests.at(-1) as { messages: { content: string }[] };
      assert.ok(
        JSON.stringify(asked.messages).includes("and how fast?"),
        "the follow-up reached the model",
      );
      await ctx.close();
    });

    await t.step("a click on a result is counted", async () => {
      const ctx = await context();
      const page = await ctx.newPage();
      await page.goto(resultsUrl("descale"));
      await hydrated(page);
      await page.locator(".hit a").first().click();
      let clicks = 0;
      for (let i = 0; i < 50 && clicks === 0; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const r = await call(`/api/admin/sites/${site.id}/analytics?days=1`, bearer(site.adminKey));
        clicks = (await r.json()).clicks.count;
      }
      assert.equal(clicks, 1);
      await ctx.close();
    });

    await t.step("widget.js and results.js report clicks on results with sendBeacon", async () => {
      const clicks = async () =>
        (await (await call(`/api/admin/sites/${site.id}/analytics?days=1`, bearer(site.adminKey)))
          .json()).clicks;
      const before = await clicks();
      const head = widgetTag(origin, site.publicKey, { "data-live": "true" });
      attacker.pages.set("/live", { head, body: "<header><div data-site-search></div></header>" });
      attacker.pages.set("/results", {
        head: head + resultsTag(origin, site.publicKey),
        body: "<main><div data-site-search-results></div></main>",
      });
      const ctx = await context();
      const page = await ctx.newPage();
      await page.goto(attacker.origin + "/live");
      await page.locator("[data-sitesearch=bar] input").pressSequentially("descale", { delay: 20 });
      await page.locator("[data-sitesearch=bar] [role=option]").first().click();
      await page.waitForURL(/\/descale$/);
      await page.goto(attacker.origin + "/results?q=kettle&page=2");
      await page.locator("[data-sitesearch=results] .hit a").first().click();
      await page.waitForURL(/\/kettle\//);
      let after = before;
      for (let i = 0; i < 50 && after.count < before.count + 2; i++) {
        await new Promise((r) => setTimeout(r, 100));
        after = await clicks();
      }
      assert.equal(after.count, before.count + 2);
      // Positions 1 (the live bar) and 11 (first result of page 2) joined the earlier clicks.
      const sum = before.averagePosition * before.count + 1 + 11;
      assert.equal(after.averagePosition, Math.round(sum / after.count * 100) / 100);
      await ctx.close();
    });

    await t.step("sign-in with a wrong key shows a message", async () => {
      const ctx = await context();
      const page = await ctx.newPage();
      await page.goto(origin + "/dashboard");
      await page.fill("#key", site.publicKey);
      await page.click("button[type=submit]");
      assert.match(await page.locator("[role=alert]").textContent() ?? "", /That key is not valid/);
      await page.fill("#key", site.adminKey);
      await page.click("button[type=submit]");
      await page.locator("h1", { hasText: "Browser test" }).waitFor();
      await ctx.close();
    });

    await t.step("a settings change is saved at once and persists across a reload", async () => {
      const ctx = await context();
      await signedIn(ctx, site.adminKey);
      const page = await ctx.newPage();
      await page.goto(origin + "/dashboard");
      await hydrated(page);
      const box = page.locator("#set-externalKnowledge");
      assert.equal(await box.isChecked(), false);
      await box.check();
      await page.locator("#settings .status.ok", { hasText: "Saved: External Knowledge." })
        .waitFor();
      await page.fill("#set-origins", "not an origin");
      await page.locator("#set-results").focus(); // leaving the field saves it
      await page.locator("#settings .status.error", { hasText: "allowed origins not saved" })
        .waitFor();
      await page.reload();
      await hydrated(page);
      assert.equal(await page.locator("#set-externalKnowledge").isChecked(), true);
      const stored = await (await call(`/api/admin/sites/${site.id}`, bearer(site.adminKey)))
        .json();
      assert.equal(stored.site.settings.externalKnowledge, true);
      assert.deepEqual(stored.site.settings.allowedOrigins, []);
      await ctx.close();
    });

    await t.step("the usage meter moves after searches", async () => {
      const ctx = await context();
      await signedIn(ctx, site.adminKey);
      const page = await ctx.newPage();
      await page.goto(origin + "/dashboard");
      await hydrated(page);
      const meter = page.locator("[data-meter=m-month]");
      const before = Number((await meter.textContent())!.split(" ")[0].replace(/,/g, ""));
      for (let i = 0; i < 3; i++) {
        const r = await call(`/api/search?key=${site.publicKey}&q=kettle${i}`);
        await r.body?.cancel();
      }
      await page.waitForFunction(
        (n) =>
          Number(document.querySelector("[data-meter=m-month]")?.textContent?.split(" ")[0]) === n,
        before + 3,
        { timeout: 10_000 },
      );
      await ctx.close();
    });

    await t.step(
      "rotating the public key with no grace shows the new key, and the old one stops working",
      async () => {
        const ctx = await context();
        await signedIn(ctx, site.adminKey);
        const page = await ctx.newPage();
        await page.goto(origin + "/dashboard");
        await hydrated(page);
        const old = site.publicKey;
        await page.click("text=Rotate public key…");
        await page.locator("#keys .confirm").waitFor();
        await page.locator("#grace").selectOption({ label: "None" });
        await page.click("text=Rotate the public key now");
        const fresh = (await page.locator("[data-key=fresh]").textContent())!;
        assert.match(fresh, /^pk_[A-Za-z0-9]{24}$/);
        assert.notEqual(fresh, old);
        assert.equal(await page.locator("[data-key=public]").textContent(), fresh);
        assert.match(
          await page.locator("[data-snippet=widget]").textContent() ?? "",
          new RegExp(fresh),
        );
        const oldRes = await call(`/api/search?key=${old}&q=kettle`);
        assert.equal(oldRes.status, 401);
        await oldRes.body?.cancel();
        const newRes = await call(`/api/search?key=${fresh}&q=kettle`);
        assert.equal(newRes.status, 200);
        await newRes.body?.cancel();
        site.publicKey = fresh;
        // The admin key too: the new one is shown once, and this browser stays signed in with it.
        await page.click("text=Rotate admin key…");
        await page.click("text=Rotate the admin key now");
        await page.locator("#keys .status.ok", { hasText: "The admin key was rotated." }).waitFor();
        const adminKey = (await page.locator("[data-key=fresh]").textContent())!;
        assert.match(adminKey, /^sk_[A-Za-z0-9]{32}$/);
        const oldAdmin = await call(`/api/admin/sites/${site.id}`, bearer(site.adminKey));
        assert.equal(oldAdmin.status, 401);
        await oldAdmin.body?.cancel();
        site.adminKey = adminKey;
        await page.reload();
        await page.locator("#keys").waitFor();
        await ctx.close();
      },
    );

    await t.step(
      "a crawl started from the dashboard shows its progress to completion",
      async () => {
        const ctx = await context();
        await signedIn(ctx, site.adminKey);
        const page = await ctx.newPage();
        await page.goto(origin + "/dashboard");
        await hydrated(page);
        await page.fill("#crawl-url", fixture.origin + "/");
        await page.click("#content button[type=submit]:has-text('Crawl')");
        await page.waitForSelector("[data-crawl-status=queued], [data-crawl-status=running]");
        await page.waitForSelector("[data-crawl-status=done]", { timeout: 20_000 });
        const counts = await page.locator("[data-crawl-counts]").textContent() ?? "";
        assert.match(
          counts,
          /7 new or changed · 0 unchanged · 0 removed · 0 skipped · 0 failed/,
        );
        // Search the list (it shows its first rows, then more on request), delete one page
        // behind a confirmation.
        await page.fill("#pages-filter", "zephyr page 5");
        await page.locator("#content .rows", { hasText: "Zephyr page 5" }).waitFor();
        assert.equal(await page.locator("#content ul[aria-label=Pages] li").count(), 1);
        await page.click("button[aria-label='Delete /p5']");
        await page.locator("#content ul[aria-label=Pages] button.danger").click();
        await page.locator("#content .status.ok", { hasText: "Deleted /p5." }).waitFor();
        const listed =
          await (await call(`/api/admin/sites/${site.id}/pages?limit=100`, bearer(site.adminKey)))
            .json();
        assert.ok(!listed.pages.some((p: { url: string }) => p.url === "/p5"));
        // Documents: the Business plan allows them.
        await page.setInputFiles("#doc-file", {
          name: "descaling-manual.md",
          mimeType: "text/markdown",
          buffer: Buffer.from(
            "# Descaling\n\nUse citric acid once a month.",
          ),
        });
        await page.click("#content button:has-text('Upload')");
        await page.locator("#content ul[aria-label=Documents]", { hasText: "descaling-manual" })
          .waitFor();
        const docs =
          await (await call(`/api/admin/sites/${site.id}/documents`, bearer(site.adminKey))).json();
        assert.equal(docs.documents.length, 1);
        await ctx.close();
      },
    );

    await t.step(
      "a cross-site POST without the right Origin is refused, even with the cookie",
      async () => {
        const ctx = await context();
        await signedIn(ctx, site.adminKey);
        // Another port on 127.0.0.1 is another origin but the same site: the cookie goes along.
        attacker.pages.set("/csrf", {
          head: "",
          body: `<form id="f" method="post" action="${origin}/dashboard/signout"></form>` +
            `<button id="rotate">rotate</button>`,
        });
        const page = await ctx.newPage();
        await page.goto(attacker.origin + "/csrf");
        await page.evaluate(async ([api, id]) => {
          await fetch(`${api}/api/admin/sites/${id}/keys/rotate`, {
            method: "POST",
            mode: "no-cors",
            credentials: "include",
            headers: { "Content-Type": "text/plain" },
            body: JSON.stringify({ key: "public" }),
          });
        }, [origin, site.id]);
        const [response] = await Promise.all([
          page.waitForResponse((r) => r.url().endsWith("/dashboard/signout")),
          page.evaluate(() => (document.getElementById("f") as HTMLFormElement).submit()),
        ]);
        assert.equal(response.status(), 403);
        assert.match(await response.text(), /ORIGIN_NOT_ALLOWED/);
        const still = await (await call(`/api/admin/sites/${site.id}`, bearer(site.adminKey)))
          .json();
        assert.equal(still.site.publicKey, site.publicKey, "the key was not rotated");
        const dash = await ctx.newPage();
        await dash.goto(origin + "/dashboard");
        assert.equal(await dash.locator("#keys").count(), 1, "still signed in");
        await ctx.close();
      },
    );

    await t.step("the operator creates a site and sets its plan and limits", async () => {
      const ctx = await context();
      await signedIn(ctx, OPERATOR);
      const page = await ctx.newPage();
      await page.goto(origin + "/dashboard");
      await hydrated(page);
      await page.fill("#new-name", "Made in the dashboard");
      await page.selectOption("#new-plan", "pro");
      await page.click("text=Create site");
      const adminKey = (await page.locator("[data-key=new-admin]").textContent())!;
      assert.match(adminKey, /^sk_/);
      const created = await (await call("/api/admin/sites", bearer(OPERATOR))).json();
      const made = created.sites.find((x: { name: string }) => x.name === "Made in the dashboard");
      assert.equal(made.plan, "pro");
      const item = page.locator(".site-item", { hasText: "Made in the dashboard" });
      await item.locator("select").selectOption("basic");
      await item.locator(".status.ok", { hasText: "Saved plan." }).waitFor();
      await item.locator(`[id="${made.id}-searchesPerMinute"]`).fill("7");
      await item.locator("text=Save limits").click();
      await item.locator(".status.ok", { hasText: "Saved limits." }).waitFor();
      const after = await (await call(`/api/admin/sites/${made.id}`, bearer(adminKey))).json();
      assert.equal(after.site.plan, "basic");
      assert.equal(after.site.limits.searchesPerMinute, 7);
      await ctx.close();
    });

    await t.step("screenshots of every page, light and dark, at 1280 and 390 px", async () => {
      for (const scheme of ["light", "dark"] as const) {
        for (const width of [1280, 390]) {
          const shots: [string, string, string | null][] = [
            ["landing", "/", null],
            ["api", "/docs/api", null],
            ["results", `/search-results?key=${site.publicKey}&q=kettle`, null],
            ["signin", "/dashboard", null],
            ["dashboard", "/dashboard", site.adminKey],
            ["operator", "/dashboard", OPERATOR],
          ];
          for (const [name, path, key] of shots) {
            const ctx = await context(scheme, width);
            if (key) await signedIn(ctx, key);
            const page = await ctx.newPage();
            await page.goto(origin + path);
            if (name === "results") {
              await page.locator(".answer .turn[aria-busy=false]").waitFor();
            }
            // The API reference runs 15,000-21,000 px, and shooting it whole took a quarter of
            // this step: its first screen shows how it is set; all of it is checked for overflow.
            await page.screenshot({
              path: new URL(`pages-${name}-${scheme}-${width}.png`, SCREENSHOTS).pathname,
              fullPage: name !== "api",
            });
            const overflow = await page.evaluate(() =>
              document.documentElement.scrollWidth - innerWidth
            );
            assert.ok(overflow <= 0, `${name} at ${width} px scrolls sideways by ${overflow} px`);
            await ctx.close();
          }
        }
      }
    });
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
    await server.shutdown();
    services.analytics.discard();
    await fixture.close();
    await attacker.close();
    await llm.close();
    kv.close();
  }
});
