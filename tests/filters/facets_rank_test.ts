import assert from "node:assert/strict";
import { createSite, search, startApp } from "../helpers.ts";
import { upsert, urls } from "./helpers.ts";

/**
 * A parts shop: many pump pages that say "gasket" often (and head a section "Gasket care"),
 * and one long catalogue page that says it once but heads a section "Gasket". Its one mention
 * in a long text puts the catalogue last: beyond the pages whose headings are read for the
 * first page, so a ranking of every match (for facets) would be the only one to lift it.
 */
function shop() {
  const pumps = Array.from({ length: 45 }, (_, i) => ({
    url: `/pumps/${i}`,
    title: `Pump model ${i}`,
    body: `Pump ${i} seals with a gasket. Replace the gasket yearly; a worn gasket leaks. ` +
      `Model ${i} runs at ${100 + i} litres an hour.`,
    headings: ["Gasket care", "Specifications"],
    filters: { category: ["Pumps"], size: [i % 2 ? "Large" : "Small"] },
  }));
  const catalogue = {
    url: "/parts/catalogue",
    title: "Parts catalogue",
    body: "Every spare part we sell, by family and size. ".repeat(60) + "A gasket is listed too.",
    headings: ["Hoses", "Gasket", "Valves"],
    filters: { category: ["Parts"] },
  };
  return [...pumps, catalogue];
}

/** An app with the shop upserted on a Pro site. */
async function openShop() {
  const t = await startApp();
  const site = await createSite(t, "pro");
  assert.equal((await upsert(t, site, shop())).body.counts.failed, 0);
  return { t, site };
}

Deno.test("facets rank - asking for facets (the default) shows the same first page as not asking", async () => {
  const { t, site } = await openShop();
  for (const q of ["gasket", "pump gasket", "gasket leaks", "model"]) {
    const plain = await search(t, site.publicKey, `q=${encodeURIComponent(q)}&facets=false`);
    const faceted = await search(t, site.publicKey, `q=${encodeURIComponent(q)}`);
    assert.equal(plain.status, 200);
    assert.ok(faceted.body.meta.facets, "facets are answered by default");
    assert.deepEqual(urls(faceted.body), urls(plain.body), q);
    assert.equal(faceted.body.meta.found, plain.body.meta.found, q);
    // Page 2 too: each page is ranked as it would be without facets.
    const plain2 = await search(t, site.publicKey, `q=${q}&page=2&facets=false`);
    const faceted2 = await search(t, site.publicKey, `q=${q}&page=2`);
    assert.deepEqual(urls(faceted2.body), urls(plain2.body), `${q}, page 2`);
  }
  t.close();
});

Deno.test("facets rank - facets count every match, not only the page shown", async () => {
  const { t, site } = await openShop();
  const r = await search(t, site.publicKey, "q=gasket");
  assert.equal(r.body.meta.found, 46);
  assert.equal(r.body.results.length, 10);
  const count = (name: string, value: string) =>
    r.body.meta.facets[name].find((v: { value: string }) => v.value === value)?.count;
  assert.equal(count("category", "Pumps"), 45);
  assert.equal(count("category", "Parts"), 1);
  assert.equal(count("size", "Large"), 22);
  assert.equal(count("size", "Small"), 23);
  t.close();
});

Deno.test("facets rank - a filtered search ranks and counts only the pages that pass, deep ones included", async () => {
  const { t, site } = await openShop();
  // The catalogue is the one Parts page: far down the whole ranking, first once filtered.
  const parts = await search(t, site.publicKey, "q=gasket&filter=category:Parts");
  assert.deepEqual(urls(parts.body), ["/parts/catalogue"]);
  assert.equal(parts.body.meta.found, 1);
  // A filter that keeps half the pumps: every page shown passes, and the count is theirs.
  const large = await search(t, site.publicKey, "q=gasket&filter=size:Large&per_page=20");
  assert.equal(large.body.meta.found, 22);
  assert.equal(large.body.results.length, 20);
  for (const url of urls(large.body)) assert.equal(Number(url.split("/")[2]) % 2, 1, url);
  const page2 = await search(t, site.publicKey, "q=gasket&filter=size:Large&per_page=20&page=2");
  assert.equal(page2.body.results.length, 2);
  const seen = new Set([...urls(large.body), ...urls(page2.body)]);
  assert.equal(seen.size, 22, "the two pages hold every large pump once");
  // Facets under a filter count the matches passing the other names' filters (docs/api.md).
  assert.equal(
    large.body.meta.facets.size.find((v: { value: string }) => v.value === "Small")?.count,
    23,
  );
  t.close();
});
