/**
 * The sitemap watch: a site crawled from its sitemap has it read again (every 15 minutes on a
 * paid plan, daily on Free); pages whose lastmod changed and pages newly listed are fetched,
 * pages no longer listed leave the index, and nothing else is fetched.
 */
import assert from "node:assert/strict";
import {
  admin,
  createSite,
  manualClock,
  startApp,
  type TestApp,
  type TestSite,
} from "../helpers.ts";
import { html, serveSite, urlsetWithLastmod } from "../fixtures/crawl_site.ts";
import { crawlToEnd, foundPaths, searchUntil } from "../fixtures/waits.ts";
import { watchDue } from "../../lib/crawl/watch.ts";

const noDns = (host: string) => Promise.reject(new Error(`no DNS in tests (${host})`));
const CRAWL = { allowLoopback: true, delayMs: 0, resolve: noDns };
const xml = (body: string) => ({ headers: { "Content-Type": "application/xml" }, body });

const watchOf = async (t: TestApp, site: TestSite) =>
  (await (await t.call(`/api/admin/sites/${site.id}/crawl`, admin(site.adminKey))).json()).watch;

Deno.test("sitemap watch - a changed lastmod, a new entry and a removed one, without a full re-crawl", async () => {
  const clock = manualClock(Date.now());
  const fx = serveSite();
  const sitemap = (entries: [string, string][], bare: string[] = []) =>
    xml(
      urlsetWithLastmod(fx.origin, entries).replace(
        "</urlset>",
        bare.map((p) => `<url><loc>${fx.origin}${p}</loc></url>`).join("") + "</urlset>",
      ),
    );
  fx.routes.set("/alpha", html("Alpha", "<p>The alpha kettle boils water.</p>"));
  fx.routes.set("/beta", html("Beta", "<p>The beta grinder mills beans.</p>"));
  fx.routes.set("/gamma", html("Gamma", "<p>The gamma scale weighs flour.</p>"));
  fx.routes.set(
    "/sitemap.xml",
    sitemap([["/alpha", "2026-01-01"], ["/beta", "2026-01-01"]], ["/gamma"]),
  );
  const t = await startApp({ crawl: CRAWL, clock });
  try {
    const site = await createSite(t, "business");
    const job = await crawlToEnd(t, site, { url: fx.origin + "/sitemap.xml" });
    assert.equal(job.status, "done");
    assert.equal(job.counts.indexed, 3);

    const before = await watchOf(t, site);
    assert.equal(before.sitemap, fx.origin + "/sitemap.xml");
    assert.equal(before.every, "15m");
    assert.equal(before.lastLookedAt, null);
    assert.equal(Date.parse(before.nextAt), clock() + 15 * 60_000);
    assert.equal(await watchDue(t.services), 0, "not due before 15 minutes");

    // The site changes: alpha edited (new lastmod), gamma edited (no lastmod: not looked at),
    // beta dropped from the sitemap, delta published.
    fx.routes.set("/alpha", html("Alpha", "<p>The alpha kettle now brews oolong tea.</p>"));
    fx.routes.set("/gamma", html("Gamma", "<p>The gamma scale now weighs saffron.</p>"));
    fx.routes.set("/delta", html("Delta", "<p>The delta whisk froths milk.</p>"));
    fx.routes.set(
      "/sitemap.xml",
      sitemap([["/alpha", "2026-02-01"], ["/delta", "2026-02-01"]], ["/gamma"]),
    );
    const requests = fx.requests.length;
    clock.advance(15 * 60_000 + 1000);
    assert.equal(await watchDue(t.services), 1);

    await searchUntil(t, site, "oolong", (urls) => urls.includes("/alpha"));
    await searchUntil(t, site, "froths", (urls) => urls.includes("/delta"));
    assert.deepEqual(await foundPaths(t, site, "grinder"), []);
    assert.deepEqual(await foundPaths(t, site, "saffron"), [], "unlisted changes wait for a crawl");
    const fetched = fx.requests.slice(requests).map((r) => r.path).filter((p) =>
      p !== "/robots.txt"
    ).sort();
    assert.deepEqual(fetched, ["/alpha", "/delta", "/sitemap.xml"]);

    const after = await watchOf(t, site);
    assert.deepEqual(after.found, { changed: 1, added: 1, removed: 1 });
    assert.equal(Date.parse(after.lastLookedAt), clock());
    assert.equal(Date.parse(after.nextAt), clock() + 15 * 60_000);
    assert.equal(after.error, null);

    // Looked at again with nothing changed: nothing is fetched but the sitemap.
    const quiet = fx.requests.length;
    clock.advance(15 * 60_000 + 1000);
    assert.equal(await watchDue(t.services), 1);
    assert.deepEqual(
      fx.requests.slice(quiet).map((r) => r.path).filter((p) => p !== "/robots.txt"),
      ["/sitemap.xml"],
    );
    assert.deepEqual((await watchOf(t, site)).found, { changed: 0, added: 0, removed: 0 });

    // A sitemap robots.txt now disallows is not read: it says so and removes nothing.
    fx.routes.set("/robots.txt", {
      headers: { "Content-Type": "text/plain" },
      body: "User-agent: *\nDisallow: /sitemap.xml\n",
    });
    clock.advance(15 * 60_000 + 1000);
    assert.equal(await watchDue(t.services), 1);
    assert.match((await watchOf(t, site)).error, /robots\.txt does not allow/);
    assert.deepEqual(await foundPaths(t, site, "oolong"), ["/alpha"]);
    fx.routes.delete("/robots.txt");

    // A sitemap that fails says so and removes nothing.
    fx.routes.set("/sitemap.xml", { status: 500, body: "down" });
    clock.advance(15 * 60_000 + 1000);
    assert.equal(await watchDue(t.services), 1);
    const failed = await watchOf(t, site);
    assert.match(failed.error, /could not be read \(HTTP 500\)/);
    assert.deepEqual(await foundPaths(t, site, "oolong"), ["/alpha"]);
  } finally {
    t.close();
    await fx.close();
  }
});

Deno.test("sitemap watch - daily on Free; a site crawled without a sitemap has none watched", async () => {
  const clock = manualClock(Date.now());
  const fx = serveSite();
  fx.routes.set("/", html("Home", '<p>Welcome. <a href="/alpha">alpha</a></p>'));
  fx.routes.set("/alpha", html("Alpha", "<p>Alpha.</p>"));
  fx.routes.set("/sitemap.xml", xml(urlsetWithLastmod(fx.origin, [["/alpha", "2026-01-01"]])));
  const t = await startApp({ crawl: CRAWL, clock });
  try {
    const free = await createSite(t, "free");
    await crawlToEnd(t, free, { url: fx.origin + "/sitemap.xml" });
    const w = await watchOf(t, free);
    assert.equal(w.every, "daily");
    assert.equal(Date.parse(w.nextAt), clock() + 24 * 3600_000);

    const links = await createSite(t, "business");
    await crawlToEnd(t, links, { url: fx.origin + "/" });
    assert.deepEqual(await watchOf(t, links), {
      sitemap: null,
      every: "15m",
      lastLookedAt: null,
      nextAt: null,
      found: null,
      error: null,
    });
  } finally {
    t.close();
    await fx.close();
  }
});
