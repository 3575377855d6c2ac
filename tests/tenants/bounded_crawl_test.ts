/**
 * A crawl's work is bounded whatever a site serves: it keeps at most SEEN_PER_PAGE URLs per page
 * it may store and reads at most MAX_SITEMAPS sitemaps; the rest is reported in the job.
 */
import assert from "node:assert/strict";
import { admin, createSite, startApp, type TestApp, type TestSite } from "../helpers.ts";
import { html, serveSite } from "../fixtures/crawl_site.ts";
import { MAX_SITEMAPS, SEEN_PER_PAGE } from "../../lib/crawl/discovery.ts";
import { ledgerPrefix } from "../../lib/crawl/url_ledger.ts";

const CRAWL = {
  allowLoopback: true,
  delayMs: 0,
  resolve: (h: string) => Promise.reject(new Error(`no DNS in tests (${h})`)),
};

async function crawl(t: TestApp, s: TestSite, body: Record<string, unknown>) {
  const res = await t.call(`/api/admin/sites/${s.id}/crawl`, admin(s.adminKey, body));
  const { job } = await res.json();
  assert.equal(res.status, 202);
  for (let i = 0; i < 3000; i++) {
    const r = await t.call(`/api/admin/sites/${s.id}/crawl/${job.id}`, admin(s.adminKey));
    const now = await r.json();
    if (now.status !== "queued" && now.status !== "running") return now;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error("the crawl did not end");
}

Deno.test("bounded crawl - a page with 300,000 links: the crawl keeps 10 URLs per page it may store and reports the rest", async () => {
  const site = serveSite();
  const links = Array.from({ length: 300_000 }, (_, i) => `<a href=/l${i}>`).join("");
  site.routes.set("/", html("Start", `<p>Many links.</p>${links}`));
  const t = await startApp({ crawl: CRAWL });
  const s = await createSite(t, "pro");
  try {
    const job = await crawl(t, s, { url: `${site.origin}/`, maxPages: 20 });
    assert.equal(job.status, "done", JSON.stringify(job).slice(0, 500));
    assert.ok(job.counts.discovered <= SEEN_PER_PAGE * 20, `kept ${job.counts.discovered}`);
    assert.ok(
      job.counts.discovered + job.reasons.discovery_limit >= 300_000,
      "every link kept or reported",
    );
    const fetched = site.paths().filter((p) => p.startsWith("/l")).length;
    assert.ok(fetched <= SEEN_PER_PAGE * 20, `fetched ${fetched}`);
    const listed = await t.call(
      `/api/admin/sites/${s.id}/crawl/${job.id}/urls?kind=skipped`,
      admin(s.adminKey),
    );
    const { urls } = await listed.json();
    assert.ok(urls.some((u: { reason: string }) => u.reason === "discovery_limit"));
    // What became of each URL is kept for as many past the limit as the crawl keeps, not for
    // every link of the page: KV holds a bounded number of records for this crawl.
    let records = 0;
    for await (const _ of t.kv.list({ prefix: ledgerPrefix(s.id) })) records++;
    assert.ok(records > 0 && records <= 2 * SEEN_PER_PAGE * 20 + 1, `${records} records`);
    // A URL past the limit with no record of its own still gets an answer that says what to do.
    const status = await t.call(
      `/api/admin/sites/${s.id}/urls/status?url=${encodeURIComponent(`${site.origin}/l299999`)}`,
      admin(s.adminKey),
    );
    assert.equal(status.status, 200);
    const { searchable, detail } = await status.json();
    assert.equal(searchable, false);
    assert.ok(detail.length > 20, detail);
  } finally {
    t.close();
    await site.close();
  }
});

Deno.test("bounded crawl - a sitemap index of 500 sitemaps: at most 50 are read, the rest reported", async () => {
  const site = serveSite();
  const xml = (body: string) => ({
    body: `<?xml version="1.0" encoding="UTF-8"?>${body}`,
    headers: { "Content-Type": "application/xml" },
  });
  const maps = Array.from({ length: 500 }, (_, i) => `${site.origin}/map${i}.xml`);
  site.routes.set(
    "/index.xml",
    xml(
      `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${
        maps.map((m) => `<sitemap><loc>${m}</loc></sitemap>`).join("")
      }</sitemapindex>`,
    ),
  );
  maps.forEach((m, i) =>
    site.routes.set(
      new URL(m).pathname,
      xml(
        `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${site.origin}/p${i}</loc></url></urlset>`,
      ),
    )
  );
  for (let i = 0; i < 500; i++) site.routes.set(`/p${i}`, html(`Page ${i}`, `<p>Page ${i}.</p>`));
  const t = await startApp({ crawl: CRAWL });
  const s = await createSite(t, "business");
  try {
    const job = await crawl(t, s, { url: `${site.origin}/index.xml` });
    assert.equal(job.status, "done", JSON.stringify(job).slice(0, 500));
    const read = site.paths().filter((p) => /^\/map\d+\.xml$/.test(p)).length;
    assert.ok(read <= MAX_SITEMAPS, `read ${read} sitemaps`);
    assert.equal(read + job.reasons.sitemap_limit, 500, "every sitemap read or reported");
  } finally {
    t.close();
    await site.close();
  }
});
