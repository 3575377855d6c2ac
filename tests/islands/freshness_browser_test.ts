/**
 * The index follows the site, as the owner meets it in the dashboard (headless Chromium at 1280
 * and 390 px, the real app, a site served on 127.0.0.1 whose pages change between steps): a page
 * edited on the site and re-fetched from its row is found by search within seconds; a list of
 * URLs with a line the API refuses names that line, and once fixed is queued; the "Why is this
 * page not searchable?" box says, for each kind of page, its reason in words and the server's
 * sentence; the crawl section shows the sitemap it watches.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { createApp } from "../../app.ts";
import { html, serveSite } from "../fixtures/crawl_site.ts";
import { admin, OPERATOR } from "../helpers.ts";
import type { SearchResponse, UrlStatusJson } from "../../lib/wire_types.ts";
import {
  browserSuite,
  CHROMIUM_ARGS,
  loadPlaywright,
  SCREENSHOTS,
  sessionCookie,
} from "../widget/browser_helpers.ts";

const OFF_SITE = "https://elsewhere.example/kettles.html";

const guide = (words: string) =>
  html(
    "Getting started",
    `<h1>Getting started</h1><p>Fill the kettle, then ${words}.</p><p><a href="/">Back</a></p>`,
  );

browserSuite(
  "browser - the index follows the site, from the dashboard",
  async (t, executablePath) => {
    const kv = await Deno.openKv(":memory:");
    const { app } = createApp({
      kv,
      operatorToken: OPERATOR,
      log: () => {},
      crawl: { allowLoopback: true, delayMs: 0 },
    });
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
    const origin = `http://127.0.0.1:${server.addr.port}`;
    const call = (path: string, init?: RequestInit) => fetch(origin + path, init);
    const site = serveSite();
    const sitemap = (paths: string[]) => ({
      headers: { "Content-Type": "application/xml" },
      body: `<?xml version="1.0" encoding="UTF-8"?>` +
        `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
        paths.map((p) => `<url><loc>${site.origin}${p}</loc></url>`).join("") + `</urlset>`,
    });
    // Reached pages of every kind: searchable, disallowed, noindex, gone; one page nothing links.
    const routes: [string, ReturnType<typeof html>][] = [
      ["/robots.txt", {
        headers: { "Content-Type": "text/plain" },
        body: "User-agent: *\nDisallow: /private/\n",
      }],
      [
        "/sitemap.xml",
        sitemap(["/", "/guide.html", "/private/plan.html", "/draft.html", "/old.html"]),
      ],
      [
        "/",
        html(
          "Zephyr Kettles",
          `<h1>Zephyr Kettles</h1><p>Read <a href="/guide.html">the guide</a>, our ` +
            `<a href="/private/plan.html">plan</a>, the <a href="/draft.html">draft</a> and the ` +
            `<a href="/old.html">old page</a>.</p>`,
        ),
      ],
      ["/guide.html", guide("boil the water")],
      ["/private/plan.html", html("Plan", "<h1>Plan</h1><p>The secret plan.</p>")],
      [
        "/draft.html",
        html("Draft", "<h1>Draft</h1><p>Not ready.</p>", {
          head: `<meta name="robots" content="noindex">`,
        }),
      ],
      ["/hidden.html", html("Hidden", "<h1>Hidden</h1><p>Nothing links here.</p>")],
    ];
    for (const [path, route] of routes) site.routes.set(path, route);

    const { chromium } = await loadPlaywright();
    const browser: Browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
    await Deno.mkdir(SCREENSHOTS, { recursive: true });
    const shot = (name: string) => new URL(`freshness-${name}.png`, SCREENSHOTS).pathname;
    const errors: string[] = [];

    const made = await (await call(
      "/api/admin/sites",
      admin(OPERATOR, { name: "Zephyr Kettles", plan: "business" }),
    )).json();
    const owner = (body?: unknown, method?: string) => admin(made.adminKey, body, method);
    const siteApi = `/api/admin/sites/${made.site.id}`;
    const searchFor = async (q: string): Promise<string[]> => {
      const res = await call(`/api/search?key=${made.publicKey}&q=${encodeURIComponent(q)}`);
      const body = await res.json();
      return (body as SearchResponse).results.map((h) => h.url);
    };
    const statusOf = async (url: string): Promise<UrlStatusJson> =>
      await (await call(`${siteApi}/urls/status?url=${encodeURIComponent(url)}`, owner())).json();

    const open = async (width: number): Promise<Page> => {
      const ctx = await browser.newContext({ viewport: { width, height: 900 } });
      const value = await sessionCookie(call, origin, made.adminKey);
      await ctx.addCookies([{ name: "sitesearch_session", value, url: origin }]);
      const page = await ctx.newPage();
      page.on("pageerror", (e) => errors.push(String(e)));
      await page.goto(origin + "/dashboard");
      await page.waitForFunction(() => document.documentElement.dataset.islands === "hydrated");
      return page;
    };

    try {
      await t.step("the site is crawled from its sitemap", async () => {
        const started = await (await call(
          `${siteApi}/crawl`,
          owner({ url: `${site.origin}/sitemap.xml` }),
        )).json();
        let job = started.job;
        for (let i = 0; i < 300 && (job.status === "queued" || job.status === "running"); i++) {
          await new Promise((r) => setTimeout(r, 20));
          job = await (await call(`${siteApi}/crawl/${job.id}`, owner())).json();
        }
        assert.equal(job.status, "done", JSON.stringify(job));
        assert.deepEqual(await searchFor("boil"), ["/guide.html"]);
      });

      const page = await open(1280);

      await t.step("the crawl section says which sitemap it watches", async () => {
        const line = page.locator("[data-watch]");
        await line.waitFor();
        assert.equal(await line.getAttribute("data-watch"), "sitemap");
        const text = await line.innerText();
        assert.ok(text.includes(`${site.origin}/sitemap.xml`), text);
        assert.match(text, /Sitemap watched every 15 minutes: /);
        assert.match(text, /not looked yet|last looked|could not|failed/i);
      });

      await t.step("a page edited on the site and re-fetched from its row is found", async () => {
        site.routes.set("/guide.html", guide("descale it with lemon juice"));
        assert.deepEqual(await searchFor("lemon"), [], "not before the re-fetch");
        const clicked = Date.now();
        await page.getByRole("button", { name: "Re-fetch /guide.html" }).click();
        await page.getByText("Queued 1 page; changes show in search within seconds.").waitFor();
        let found: string[] = [];
        while (Date.now() - clicked < 10_000) {
          found = await searchFor("lemon");
          if (found.length) break;
          await new Promise((r) => setTimeout(r, 200));
        }
        assert.deepEqual(found, ["/guide.html"], "searchable within 10 s of the click");
        const note = page.locator("[data-refetch-note]");
        await note.filter({ hasText: /^Searchable, fetched/ }).waitFor({ timeout: 15_000 });
        // The crawl section follows the re-fetch as a job of its own.
        await page.locator("[data-crawl-title]", { hasText: "Re-fetch of 1 page" }).waitFor();
      });

      await t.step(
        "a list with a line the API refuses names that line; fixed, it is queued",
        async () => {
          const field = page.getByLabel("Pages you changed");
          await field.fill(["/guide.html", "", OFF_SITE, "/"].join("\n"));
          await page.getByRole("button", { name: "Re-fetch now" }).click();
          const error = page.locator("#refetch-urls-error");
          await error.waitFor();
          const said = await error.innerText();
          assert.match(said, /^Line 3\b/, said);
          assert.ok(said.includes(OFF_SITE), said);
          assert.equal(await field.getAttribute("aria-invalid"), "true");
          await field.fill(["/guide.html", "", `${site.origin}/`].join("\n"));
          await page.getByRole("button", { name: "Re-fetch now" }).click();
          await page.locator("[data-refetch]").getByText(
            "Queued 2 pages; changes show in search within seconds.",
          ).waitFor();
          assert.equal(await error.count(), 0, "the refused line's message is gone");
          await page.locator("[data-crawl-title]", { hasText: "Re-fetch of 2 pages finished" })
            .waitFor({ timeout: 15_000 });
        },
      );

      await t.step(
        "the status box says why each kind of page is or is not searchable",
        async () => {
          const cases: [string, string, RegExp][] = [
            ["/guide.html", "indexed", /^Indexed$/],
            ["/private/plan.html", "robots", /robots\.txt/],
            ["/draft.html", "noindex", /noindex/],
            ["/old.html", "http_404", /Not found \(HTTP 404\)/],
            ["/hidden.html", "not_linked", /No link to it found/],
            [OFF_SITE, "off_site", /Not on this site/],
          ];
          const input = page.getByLabel("URL or path");
          for (const [url, reason, words] of cases) {
            const truth = await statusOf(url);
            assert.equal(truth.reason, reason, `${url}: ${JSON.stringify(truth)}`);
            await input.fill(url);
            await page.getByRole("button", { name: "Check" }).click();
            const box = page.locator(`[data-url-status="${reason}"]`);
            await box.waitFor();
            assert.match(await box.locator("[data-reason]").innerText(), words);
            assert.equal(await box.locator("[data-detail]").innerText(), truth.detail);
            assert.equal(
              await box.locator(".tag").innerText(),
              truth.searchable ? "Searchable" : "Not searchable",
            );
            assert.equal(
              await box.locator("[data-fetched]").innerText(),
              truth.lastFetched
                ? await page.evaluate(
                  (iso) =>
                    `Last fetched ${
                      new Date(iso).toLocaleString("en-GB", {
                        dateStyle: "medium",
                        timeStyle: "short",
                      })
                    }`,
                  truth.lastFetched,
                )
                : "Never fetched",
            );
            const refetchable = !truth.searchable && reason !== "off_site";
            assert.equal(
              await box.locator("[data-status-refetch]").count(),
              refetchable ? 1 : 0,
              url,
            );
            if (reason === "http_404") {
              await page.screenshot({
                path: shot("1280"),
                fullPage: true,
              });
            }
          }
          await input.fill("  ");
          await page.getByRole("button", { name: "Check" }).click();
          await page.locator("#url-status-error").waitFor();
          assert.match(
            await page.locator("#url-status-error").innerText(),
            /Enter a URL or a path/,
          );
        },
      );

      await t.step("a page re-fetched from the status box is checked again", async () => {
        const input = page.getByLabel("URL or path");
        await input.fill("/hidden.html");
        await page.getByRole("button", { name: "Check" }).click();
        await page.locator(`[data-url-status="not_linked"] [data-status-refetch]`).click();
        // Re-fetched by name, the unlinked page is indexed: the box says so once the fetch lands.
        await page.locator(`[data-url-status="indexed"]`).waitFor({ timeout: 15_000 });
        assert.equal(
          await page.locator(`[data-url-status] [data-detail]`).innerText(),
          (await statusOf("/hidden.html")).detail,
        );
      });
      await page.context().close();

      await t.step("on a phone the panels fit, nothing scrolls sideways", async () => {
        const phone = await open(390);
        await phone.locator("[data-crawl-title]").waitFor();
        await phone.getByLabel("URL or path").fill("/draft.html");
        await phone.getByRole("button", { name: "Check" }).click();
        await phone.locator(`[data-url-status="noindex"]`).waitFor();
        const sideways = await phone.evaluate(() =>
          document.scrollingElement!.scrollWidth - globalThis.innerWidth
        );
        assert.equal(sideways, 0, "the dashboard scrolls sideways at 390 px");
        await phone.screenshot({ path: shot("390"), fullPage: true });
        await phone.context().close();
      });

      assert.deepEqual(errors, [], "no script error on the dashboard");
    } finally {
      await browser.close();
      await server.shutdown();
      await site.close();
      kv.close();
    }
  },
);
