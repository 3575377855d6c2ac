/** Crawl history is kept per origin: crawls of two origins into one site never remove each other's pages. */
import assert from "node:assert/strict";
import { admin, createSite, startApp, type TestApp, type TestSite } from "../helpers.ts";
import { html, serveSite, urlset } from "../fixtures/crawl_site.ts";

const noDns = (host: string) => Promise.reject(new Error(`no DNS in tests (${host})`));

/** Starts a crawl through the API and polls until it ends. */
async function crawlTo(t: TestApp, site: TestSite, url: string) {
  const res = await t.call(`/api/admin/sites/${site.id}/crawl`, admin(site.adminKey, { url }));
  const started = await res.json();
  assert.equal(res.status, 202, JSON.stringify(started));
  for (let i = 0; i < 500; i++) {
    const poll = await t.call(
      `/api/admin/sites/${site.id}/crawl/${started.job.id}`,
      admin(site.adminKey),
    );
    const job = await poll.json();
    if (job.status !== "queued" && job.status !== "running") return job;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("crawl did not finish");
}

async function urls(t: TestApp, site: TestSite): Promise<string[]> {
  const res = await t.call(`/api/admin/sites/${site.id}/pages`, admin(site.adminKey));
  return (await res.json()).pages.map((p: { url: string }) => p.url).sort();
}

Deno.test("crawl history - a crawl of origin B never removes a page that a crawl of origin A stored", async () => {
  const a = serveSite();
  const b = serveSite();
  a.routes.set("/sitemap.xml", {
    headers: { "Content-Type": "application/xml" },
    body: urlset(a.origin, ["/kettles", "/shared"]),
  });
  a.routes.set("/kettles", html("Kettles", "<p>Kettles from A.</p>"));
  a.routes.set("/shared", html("Shared A", "<p>Shared from A.</p>"));
  b.routes.set("/sitemap.xml", {
    headers: { "Content-Type": "application/xml" },
    body: urlset(b.origin, ["/teapots"]),
  });
  b.routes.set("/teapots", html("Teapots", "<p>Teapots from B.</p>"));
  const t = await startApp({ crawl: { allowLoopback: true, delayMs: 0, resolve: noDns } });
  const site = await createSite(t, "business");

  const first = await crawlTo(t, site, `${a.origin}/sitemap.xml`);
  assert.equal(first.status, "done");
  assert.deepEqual(await urls(t, site), ["/kettles", "/shared"]);
  const second = await crawlTo(t, site, `${b.origin}/sitemap.xml`);
  assert.equal(second.status, "done");
  assert.equal(second.counts.removed, 0);
  assert.deepEqual(await urls(t, site), ["/kettles", "/shared", "/teapots"]);

  // A's own re-crawl still removes what A no longer lists, and only that.
  a.routes.set("/sitemap.xml", {
    headers: { "Content-Type": "application/xml" },
    body: urlset(a.origin, ["/kettles"]),
  });
  const third = await crawlTo(t, site, `${a.origin}/sitemap.xml`);
  assert.equal(third.counts.removed, 1);
  assert.deepEqual(await urls(t, site), ["/kettles", "/teapots"]);
  t.close();
  await a.close();
  await b.close();
});
