/**
 * A site's filters are bounded over all its pages: at most 64 names and 1,000 values of each.
 * A page keeps the filters that fit, and the upsert's result (or the crawl's job) says which
 * did not, in `warnings`.
 */
import assert from "node:assert/strict";
import { admin, createSite, putPages, search, startApp } from "../helpers.ts";
import { html, serveSite } from "../fixtures/crawl_site.ts";
import { SITE_FILTER_LIMITS } from "../../lib/search/mod.ts";

const CRAWL = {
  allowLoopback: true,
  delayMs: 0,
  resolve: (h: string) => Promise.reject(new Error(`no DNS in tests (${h})`)),
};

Deno.test("filter caps - 1,200 distinct values of one filter: the first 1,000 are kept, the rest warned about and not filterable", async () => {
  const t = await startApp();
  try {
    const site = await createSite(t, "business");
    const pages = Array.from({ length: 60 }, (_, p) => ({
      url: `/p/${p}`,
      title: `Brewing page ${p}`,
      body: "Brewing notes.",
      filters: { tag: Array.from({ length: 20 }, (_, v) => `t${p * 20 + v}`) },
    }));
    const out = await putPages(t, site, pages);
    assert.equal(out.counts.created, 60);
    const warned = out.results.filter((r: { warnings?: string[] }) => r.warnings);
    assert.equal(warned.length, 10, "the last 10 pages' values did not fit");
    assert.match(warned[0].warnings[0], /at most 1000 values/);
    assert.equal(
      warned.reduce((n: number, r: { warnings: string[] }) => n + r.warnings.length, 0),
      1200 - SITE_FILTER_LIMITS.valuesPerName,
    );
    const kept = await search(t, site.publicKey, "q=brewing&filter=tag:t999");
    assert.equal(kept.body.meta.found, 1);
    const dropped = await search(t, site.publicKey, "q=brewing&filter=tag:t1000");
    assert.equal(dropped.body.meta.found, 0, "a value past the cap is not in the index");
    // A value the site has already is kept on any page, however full the filter is.
    const again = await putPages(t, site, [{
      url: "/again",
      title: "Brewing again",
      body: "Brewing.",
      filters: { tag: ["t5"] },
    }]);
    assert.equal(again.results[0].warnings, undefined);
  } finally {
    t.close();
  }
});

Deno.test("filter caps - past 64 filter names a page keeps the names that fit", async () => {
  const t = await startApp();
  try {
    const site = await createSite(t, "business");
    const pages = Array.from({ length: 7 }, (_, p) => ({
      url: `/n/${p}`,
      title: `Page ${p}`,
      body: "Text.",
      filters: Object.fromEntries(Array.from({ length: 10 }, (_, k) => [`n${p * 10 + k}`, ["x"]])),
    }));
    const out = await putPages(t, site, pages);
    const warnings = out.results.flatMap((r: { warnings?: string[] }) => r.warnings ?? []);
    assert.equal(warnings.length, 70 - SITE_FILTER_LIMITS.names);
    assert.match(warnings[0], /at most 64 filter names/);
  } finally {
    t.close();
  }
});

Deno.test("filter caps - a crawl's pages keep the filters that fit and the job says which did not", async () => {
  const site = serveSite();
  const links = Array.from({ length: 3 }, (_, i) => `<a href="/f${i}">f</a>`).join(" ");
  site.routes.set("/", html("Start", links));
  for (let i = 0; i < 3; i++) {
    const metas = Array.from(
      { length: 10 },
      (_, k) => `<meta name="sitesearch:filter:n${i * 10 + k}" content="x">`,
    ).join("");
    site.routes.set(`/f${i}`, html(`F${i}`, `${metas}<p>Filtered page ${i}.</p>`));
  }
  const t = await startApp({ crawl: CRAWL });
  const s = await createSite(t, "business");
  // The site has 60 names already: 4 more fit.
  await putPages(t, s, [{
    url: "/seed",
    title: "Seed",
    body: "Seed.",
    filters: Object.fromEntries(Array.from({ length: 10 }, (_, k) => [`s${k}`, ["x"]])),
  }]);
  for (let b = 1; b < 6; b++) {
    await putPages(t, s, [{
      url: `/seed${b}`,
      title: "Seed",
      body: "Seed.",
      filters: Object.fromEntries(Array.from({ length: 10 }, (_, k) => [`s${b}x${k}`, ["x"]])),
    }]);
  }
  try {
    const res = await t.call(
      `/api/admin/sites/${s.id}/crawl`,
      admin(s.adminKey, { url: `${site.origin}/` }),
    );
    const { job } = await res.json();
    let ended;
    for (let i = 0; i < 300; i++) {
      const r = await t.call(`/api/admin/sites/${s.id}/crawl/${job.id}`, admin(s.adminKey));
      ended = await r.json();
      if (ended.status !== "queued" && ended.status !== "running") break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(ended.status, "done", JSON.stringify(ended));
    assert.equal(ended.counts.indexed, 4, "the start page and the three, every one stored");
    assert.ok(ended.warnings?.length, JSON.stringify(ended));
    assert.match(ended.warnings[0], /at most 64 filter names/);
  } finally {
    t.close();
    await site.close();
  }
});
