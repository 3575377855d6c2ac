import assert from "node:assert/strict";
import { createSite, search, startApp } from "../helpers.ts";
import { BREW, upsert, urls } from "./helpers.ts";

Deno.test("filters api - filter values of one name are OR-ed and names are AND-ed", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  const put = await upsert(t, site, BREW);
  assert.equal(put.body.counts.failed, 0, JSON.stringify(put.body));
  const all = await search(t, site.publicKey, "q=brewing");
  assert.equal(all.body.meta.found, 5);
  const guides = await search(t, site.publicKey, "q=brewing&filter=category:Guides");
  assert.equal(guides.status, 200);
  assert.deepEqual(urls(guides.body), ["/guides/pale-ale", "/guides/stout"]);
  assert.equal(guides.body.meta.found, 2);
  const either = await search(
    t,
    site.publicKey,
    "q=brewing&filter=category:Kit&filter=category:Ingredients",
  );
  assert.deepEqual(urls(either.body), ["/shop/hops", "/shop/kettle"]);
  const both = await search(
    t,
    site.publicKey,
    "q=brewing&filter=category:Guides&filter=category:Kit&filter=level:Beginner",
  );
  assert.deepEqual(urls(both.body), ["/guides/pale-ale", "/shop/kettle"]);
  // A value with a colon in it: only the first colon ends the name.
  const none = await search(t, site.publicKey, "q=brewing&filter=category:Kit:Big");
  assert.equal(none.body.meta.found, 0);
  t.close();
});

Deno.test("filters api - an unknown filter name or value matches nothing, and is not an error", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  await upsert(t, site, BREW);
  for (const f of ["colour:Red", "category:Nothing"]) {
    const r = await search(t, site.publicKey, `q=brewing&filter=${encodeURIComponent(f)}`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.results, []);
    assert.equal(r.body.meta.found, 0);
  }
  t.close();
});

Deno.test("filters api - a malformed filter or facets parameter is a 400 that names it", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  await upsert(t, site, BREW);
  const bad = [
    "filter=category",
    "filter=:Guides",
    "filter=category:",
    "filter=cat%20egory:Guides",
    `filter=category:${"x".repeat(65)}`,
    Array.from({ length: 21 }, (_, i) => `filter=category:v${i}`).join("&"),
  ];
  for (const p of bad) {
    const r = await search(t, site.publicKey, `q=brewing&${p}`);
    assert.equal(r.status, 400, p);
    assert.equal(r.body.error.code, "INVALID_PARAMETER", p);
    assert.equal(r.body.error.param, "filter", p);
  }
  for (const p of ["facets=no", "facets=true&facets=false"]) {
    const r = await search(t, site.publicKey, `q=brewing&${p}`);
    assert.equal(r.status, 400, p);
    assert.equal(r.body.error.param, "facets", p);
  }
  t.close();
});

Deno.test("filters api - facets count each name's largest values for the query without that name's own filters", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  await upsert(t, site, BREW);
  const r = await search(t, site.publicKey, "q=brewing");
  const f = r.body.meta.facets;
  assert.deepEqual(f.category, [
    { value: "Brewing", count: 2 },
    { value: "Guides", count: 2 },
    { value: "Ingredients", count: 1 },
    { value: "Kit", count: 1 },
  ]);
  assert.deepEqual(f.level, [{ value: "Beginner", count: 2 }, { value: "Advanced", count: 1 }]);
  assert.deepEqual(f.section, [
    { value: "guides", count: 2 },
    { value: "shop", count: 2 },
    { value: "home", count: 1 },
  ]);
  assert.deepEqual(f.type, [{ value: "page", count: 5 }]);
  assert.deepEqual(f.lang, [{ value: "en", count: 5 }]);
  // Filtering by level leaves level's own counts whole, and narrows every other name.
  const byLevel = await search(t, site.publicKey, "q=brewing&filter=level:Beginner");
  assert.deepEqual(byLevel.body.meta.facets.level, f.level);
  assert.deepEqual(byLevel.body.meta.facets.category, [
    { value: "Brewing", count: 1 },
    { value: "Guides", count: 1 },
    { value: "Kit", count: 1 },
  ]);
  assert.deepEqual(byLevel.body.meta.facets.section, [
    { value: "guides", count: 1 },
    { value: "shop", count: 1 },
  ]);
  // Only the query's matches count.
  const stout = await search(t, site.publicKey, "q=stout");
  assert.deepEqual(stout.body.meta.facets.level, [
    { value: "Advanced", count: 1 },
    { value: "Beginner", count: 1 },
  ]);
  const off = await search(t, site.publicKey, "q=brewing&facets=false");
  assert.equal(off.body.meta.facets, undefined);
  assert.equal(off.body.meta.found, 5);
  t.close();
});

Deno.test("filters api - a facet lists at most the 10 largest values, largest first", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  // Value k is on k + 1 pages: 12 values, the two smallest are left out.
  const pages = [];
  for (let k = 0; k < 12; k++) {
    for (let j = 0; j <= k; j++) {
      pages.push({
        url: `/t/${k}-${j}`,
        title: `Tagged page ${k} ${j}`,
        body: "A tagged page.",
        filters: { tag: [`t${k}`] },
      });
    }
  }
  const put = await upsert(t, site, pages);
  assert.equal(put.body.counts.failed, 0);
  const r = await search(t, site.publicKey, "q=tagged&per_page=1");
  assert.deepEqual(
    r.body.meta.facets.tag,
    Array.from({ length: 10 }, (_, i) => ({ value: `t${11 - i}`, count: 12 - i })),
  );
  assert.equal(r.body.meta.found, 78);
  t.close();
});

Deno.test("filters api - filters and facets are part of the result cache key, and follow an upsert and a delete", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  await upsert(t, site, BREW);
  const guides = "q=brewing&filter=category:Guides";
  assert.equal((await search(t, site.publicKey, guides)).body.meta.found, 2);
  assert.equal((await search(t, site.publicKey, "q=brewing")).body.meta.found, 5);
  // The same filters in another order are the same search.
  const a = await search(t, site.publicKey, "q=brewing&filter=level:Beginner&filter=category:Kit");
  const b = await search(t, site.publicKey, "q=brewing&filter=category:Kit&filter=level:Beginner");
  assert.deepEqual(a.body, b.body);
  assert.deepEqual(urls(a.body), ["/shop/kettle"]);
  // A page changes its filters: the cached filtered answer does not come back.
  const moved = { ...BREW[2], filters: { category: ["Guides"] } };
  await upsert(t, site, [moved]);
  const after = await search(t, site.publicKey, guides);
  assert.deepEqual(urls(after.body), ["/guides/pale-ale", "/guides/stout", "/shop/kettle"]);
  assert.equal(
    after.body.meta.facets.category.find((v: { value: string }) => v.value === "Kit"),
    undefined,
  );
  const del = await t.call(
    `/api/admin/sites/${site.id}/pages?url=${encodeURIComponent("/guides/stout")}`,
    { method: "DELETE", headers: { Authorization: `Bearer ${site.adminKey}` } },
  );
  await del.body?.cancel();
  const gone = await search(t, site.publicKey, guides);
  assert.deepEqual(urls(gone.body), ["/guides/pale-ale", "/shop/kettle"]);
  t.close();
});

Deno.test("filters api - built-in section, type and lang come from the page's path and language", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  await upsert(t, site, [
    { url: "/", title: "Kettle home", body: "kettle", lang: "en" },
    { url: "/docs/alpha", title: "Kettle docs", body: "kettle", lang: "en" },
    { url: "/docs/manual.pdf", title: "Kettle manual", body: "kettle", lang: "en-GB" },
    { url: "/de/kessel", title: "Kettle Kessel", body: "kettle Kessel", lang: "de-AT" },
    // The page's own value of a built-in name replaces it.
    { url: "/x/y", title: "Kettle x", body: "kettle", filters: { section: ["Extra"] } },
    // A page that declares no language is read (and filtered) in the site's usual one.
  ]);
  const r = await search(t, site.publicKey, "q=kettle");
  assert.equal(r.body.meta.found, 5);
  const { section, type, lang } = r.body.meta.facets;
  assert.deepEqual(section, [
    { value: "docs", count: 2 },
    { value: "Extra", count: 1 },
    { value: "de", count: 1 },
    { value: "home", count: 1 },
  ]);
  assert.deepEqual(type, [{ value: "page", count: 4 }, { value: "document", count: 1 }]);
  assert.deepEqual(lang, [{ value: "en", count: 4 }, { value: "de", count: 1 }]);
  const docs = await search(t, site.publicKey, "q=kettle&filter=type:document");
  assert.deepEqual(urls(docs.body), ["/docs/manual.pdf"]);
  const home = await search(t, site.publicKey, "q=kettle&filter=section:home&filter=lang:en");
  assert.deepEqual(urls(home.body), ["/"]);
  t.close();
});

Deno.test("filters api - page filters beyond the limits fail that page naming filters, and store nothing", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  const names = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`n${i}`, ["v"]]));
  const bad = [
    names,
    { category: Array.from({ length: 21 }, (_, i) => `v${i}`) },
    { category: ["x".repeat(65)] },
    { ["x".repeat(65)]: ["v"] },
    { "bad name": ["v"] },
    { category: [""] },
    { category: "Guides" },
    { category: [1] },
  ];
  for (const filters of bad) {
    const r = await upsert(t, site, [{ url: "/a", title: "A", body: "kettle", filters }]);
    assert.equal(r.body.counts.failed, 1, JSON.stringify(filters));
    const err = r.body.results[0].error;
    assert.equal(err.code, "INVALID_PARAMETER");
    assert.match(err.param, /^pages\.0\.filters/);
  }
  const s = await search(t, site.publicKey, "q=kettle");
  assert.equal(s.body.meta.found, 0);
  // Exactly at the limits is fine.
  const full = Object.fromEntries(
    Array.from({ length: 10 }, (_, i) => [`n${i}`, i < 9 ? ["y".repeat(64), "z"] : ["w", "v"]]),
  );
  const ok = await upsert(t, site, [{ url: "/a", title: "A", body: "kettle", filters: full }]);
  assert.equal(ok.body.counts.created, 1, JSON.stringify(ok.body));
  const f = await search(t, site.publicKey, `q=kettle&filter=n0:${"y".repeat(64)}`);
  assert.equal(f.body.meta.found, 1);
  t.close();
});

Deno.test("filters api - curations still apply under a filter: a pin that passes it leads, one that does not is left out, a hidden page stays hidden", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  await upsert(t, site, BREW);
  const res = await t.call(`/api/admin/sites/${site.id}/curations`, {
    method: "PUT",
    headers: { Authorization: `Bearer ${site.adminKey}`, "Content-Type": "application/json" },
    body: JSON.stringify({
      curations: [{
        query: "brewing",
        match: "exact",
        pin: ["/shop/kettle", "/guides/stout"],
        hide: ["/guides/pale-ale"],
      }],
    }),
  });
  assert.equal(res.status, 200, JSON.stringify(await res.json()));
  const r = await search(t, site.publicKey, "q=brewing&filter=category:Guides");
  assert.deepEqual(r.body.results.map((x: { url: string }) => x.url), ["/guides/stout"]);
  assert.equal(r.body.results[0].pinned, true);
  assert.equal(r.body.meta.found, 1);
  // Facets count what the curated search shows: the hidden page is not among them.
  assert.deepEqual(
    r.body.meta.facets.category.find((v: { value: string }) => v.value === "Guides"),
    {
      value: "Guides",
      count: 1,
    },
  );
  t.close();
});
