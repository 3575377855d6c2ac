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
  search,
  startApp,
  type TestApp,
  type TestSite,
} from "../helpers.ts";
import { html, serveSite, urlsetWithLastmod } from "../fixtures/crawl_site.ts";
import { watchDue } from "../../lib/crawl/watch.ts";

const noDns = (host: string) => Promise.reject(new Error(`no DNS in tests (${host})`));
const CRAWL = { allowLoopback: true, delayMs: 0, resolve: noDns };
const xml = (body: string) => ({ headers: { "Content-Type": "application/xml" }, body });

async function crawlAndWait(t: TestApp, site: TestSite, url: string) {
  const res = await t.call(`/api/admin/sites/${site.id}/crawl`, admin(site.adminKey, { url }));
  assert.equal(res.status, 202);
  const { job } = await res.json();
  for (let i = 0; i < 500; i++) {
    const path = `/api/admin/sites/${site.id}/crawl/${job.id}`;
    const j = await (await t.call(path, admin(site.adminKey))).json();
    if (j.status !== "queued" && j.status !== "running") return j;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("crawl did not end");
}

const watchOf = async (t: TestApp, site: TestSite) =>
  (await (await t.call(`/api/admin/sites/${site.id}/crawl`, admin(site.adminKey))).json()).watch;

async function found(t: TestApp, site: TestSite, q: string): Promise<string[]> {
  const res = await search(t, site.publicKey, `q=${encodeURIComponent(q)}`);
  return res.body.results.map((r: { url: string }) => new URL(r.url, "http://x").pathname);
}

async function until(t: TestApp, site: TestSite, q: string, ok: (urls: string[]) => boolean) {
  const start = Date.now();
  while (Date.now() - start < 10_000) {
    if (ok(await found(t, site, q))) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`search for ${q} did not change within 10 s`);
}

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
    const job = await crawlAndWait(t, site, fx.origin + "/sitemap.xml");
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

    await until(t, site, "oolong", (urls) => urls.includes("/alpha"));
    await until(t, site, "froths", (urls) => urls.includes("/delta"));
    assert.deepEqual(await found(t, site, "grinder"), []);
    assert.deepEqual(await found(t, site, "saffron"), [], "unlisted changes wait for a crawl");
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

    // A sitemap that fails says so and removes nothing.
    fx.routes.set("/sitemap.xml", { status: 500, body: "down" });
    clock.advance(15 * 60_000 + 1000);
    assert.equal(await watchDue(t.services), 1);
    const failed = await watchOf(t, site);
    assert.match(failed.error, /could not be read \(HTTP 500\)/);
    assert.deepEqual(await found(t, site, "oolong"), ["/alpha"]);
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
    await crawlAndWait(t, free, fx.origin + "/sitemap.xml");
    const w = await watchOf(t, free);
    assert.equal(w.every, "daily");
    assert.equal(Date.parse(w.nextAt), clock() + 24 * 3600_000);

    const links = await createSite(t, "business");
    await crawlAndWait(t, links, fx.origin + "/");
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
