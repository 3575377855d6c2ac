/** Filters a crawled page declares: meta tags and data-sitesearch-filter elements. */
import assert from "node:assert/strict";
import { extractPage } from "../../lib/crawl/extract.ts";
import { admin, createSite, search, startApp } from "../helpers.ts";
import { html, serveSite } from "../fixtures/crawl_site.ts";

const PAGE = `<!doctype html><html lang="en"><head><title>Pale ale</title>
<meta name="sitesearch:filter:category" content="Brewing">
<meta name="sitesearch:filter:category" content=" Guides ">
<meta name="sitesearch:filter:category" content="Brewing">
<meta name="sitesearch:filter:bad name" content="x">
<meta name="sitesearch:filter:level" content="">
</head><body><main><h1>Pale ale</h1>
<p>By <span data-sitesearch-filter="author">Ada
  <b>Lovelace</b></span>, for <em data-sitesearch-filter="level">beginners</em>.</p>
<div data-sitesearch-filter="topic"><span data-sitesearch-filter="topic">Hops</span> and malt</div>
<svg><text data-sitesearch-filter="ignored">drawn</text></svg>
</main></body></html>`;

Deno.test("filters crawl - meta tags (one a value) and data-sitesearch-filter elements (their text) give a page's filters", () => {
  const page = extractPage(PAGE, "https://example.com/guides/pale-ale");
  assert.deepEqual(page.filters, {
    category: ["Brewing", "Guides"],
    author: ["Ada Lovelace"],
    level: ["beginners"],
    topic: ["Hops", "Hops and malt"],
  });
  // The element's text is still the page's text.
  assert.match(page.text, /Ada\s+Lovelace/);
  assert.equal(extractPage("<p>No filters</p>", "https://example.com/").filters, undefined);
});

Deno.test("filters crawl - a page declaring more than the limits keeps its first names and values", () => {
  const metas = Array.from(
    { length: 30 },
    (_, i) => `<meta name="sitesearch:filter:n${i % 12}" content="v${i}">`,
  ).join("");
  const long = `<meta name="sitesearch:filter:long" content="${"x".repeat(65)}">`;
  const page = extractPage(`<head>${long}${metas}</head><p>x</p>`, "https://example.com/");
  const f = page.filters!;
  assert.equal(Object.keys(f).length, 10);
  assert.equal(Object.values(f).flat().length, 20);
  assert.deepEqual(f.n0, ["v0", "v12"]);
  assert.equal(f.long, undefined);
  assert.equal(f.n10, undefined, "an 11th name is left out");
});

const noDns = (host: string) => Promise.reject(new Error(`no DNS in tests (${host})`));

Deno.test("filters crawl - a crawled site's declared filters and built-in sections filter its search", async () => {
  const site = serveSite();
  site.routes.set(
    "/",
    html(
      "Kettle shop",
      `<p>Kettles. <a href="/guides/descale">Guide</a> <a href="/shop/k1">K1</a></p>`,
    ),
  );
  site.routes.set(
    "/guides/descale",
    html(
      "Descale a kettle",
      `<p>Descale your kettle. <span data-sitesearch-filter="level">Easy</span></p>`,
    ),
  );
  site.routes.set(
    "/shop/k1",
    html("Kettle K1", "<p>The K1 kettle.</p>", {
      head: `<meta name="sitesearch:filter:level" content="Easy">` +
        `<meta name="sitesearch:filter:brand" content="Acme">`,
    }),
  );
  const t = await startApp({ crawl: { allowLoopback: true, delayMs: 0, resolve: noDns } });
  const s = await createSite(t, "pro");
  const res = await t.call(
    `/api/admin/sites/${s.id}/crawl`,
    admin(s.adminKey, { url: `${site.origin}/` }),
  );
  const { job } = await res.json();
  for (let i = 0; i < 500; i++) {
    const r = await t.call(`/api/admin/sites/${s.id}/crawl/${job.id}`, admin(s.adminKey));
    const body = await r.json();
    if (body.status !== "queued" && body.status !== "running") break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const all = await search(t, s.publicKey, "q=kettle");
  assert.equal(all.body.meta.found, 3);
  assert.deepEqual(all.body.meta.facets.level, [{ value: "Easy", count: 2 }]);
  assert.deepEqual(all.body.meta.facets.brand, [{ value: "Acme", count: 1 }]);
  const easyShop = await search(t, s.publicKey, "q=kettle&filter=level:Easy&filter=section:shop");
  assert.deepEqual(easyShop.body.results.map((r: { url: string }) => r.url), ["/shop/k1"]);
  t.close();
  await site.close();
});
