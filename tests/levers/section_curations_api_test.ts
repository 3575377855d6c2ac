import assert from "node:assert/strict";
import { admin, createSite, search, startApp, type TestApp, type TestSite } from "../helpers.ts";
import { lever } from "./helpers.ts";
import { ANCHORED_DOCS } from "../fixtures/anchored_docs.ts";

/** The anchored docs, and a page without sections. */
const DOCS = [
  ...ANCHORED_DOCS,
  {
    url: "/faq.html",
    title: "Questions",
    body: "Can I filter by year? Yes: send a year filter with the query.",
  },
];

async function docsSite(t: TestApp): Promise<TestSite> {
  const site = await createSite(t, "pro");
  const res = await t.call(`/api/admin/sites/${site.id}/pages`, {
    ...admin(site.adminKey, { pages: DOCS }),
    method: "PUT",
  });
  assert.equal(res.status, 200, await res.text());
  return site;
}

const preview = async (t: TestApp, site: TestSite, body: unknown) => {
  const res = await t.call(
    `/api/admin/sites/${site.id}/levers/preview`,
    admin(site.adminKey, body),
  );
  return { status: res.status, body: await res.json() };
};

Deno.test("curations api - a pinned section's page comes first and its result links that section, in search and in the preview", async () => {
  const t = await startApp();
  const site = await docsSite(t);
  const before = await search(t, site.publicKey, "q=filters");
  assert.notEqual(before.body.results[0].url, "/api.html#custom-filters");
  const curations = [{ query: "filters", pin: ["/api.html#custom-filters"] }];
  // The preview shows it before anything is saved.
  const p = await preview(t, site, { q: "filters", curations });
  assert.equal(p.status, 200, JSON.stringify(p.body));
  assert.deepEqual(p.body.after.results[0], {
    title: "API reference",
    url: "/api.html#custom-filters",
    pinned: true,
  });
  assert.deepEqual(p.body.warnings, []);
  const put = await lever(t, site, "curations", { curations });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.deepEqual(put.body.warnings, []);
  const r = await search(t, site.publicKey, "q=Filters");
  assert.equal(r.body.results[0].url, "/api.html#custom-filters");
  assert.equal(r.body.results[0].pinned, true);
  const pages = r.body.results.map((x: { url: string }) => x.url.split("#")[0]);
  assert.equal(new Set(pages).size, pages.length, "the pinned page shows once");
  // Pinned for a query its page does not match, it still links the section.
  await lever(t, site, "curations", {
    curations: [{ query: "brand year", pin: ["/api.html#rate-limits"] }],
  });
  const other = await search(t, site.publicKey, "q=brand%20year");
  assert.equal(other.body.results[0].url, "/api.html#rate-limits");
  t.close();
});

Deno.test("curations api - a hidden section is never linked for the query; its page still shows, and a hidden page hides its sections' pins", async () => {
  const t = await startApp();
  const site = await docsSite(t);
  const linked = (body: { results: { url: string; sections: { url: string }[] }[] }) =>
    body.results.flatMap((r) => [r.url, ...r.sections.map((x) => x.url)]);
  const before = await search(t, site.publicKey, "q=custom%20filters");
  assert.ok(linked(before.body).includes("/api.html#custom-filters"), "linked before");
  const put = await lever(t, site, "curations", {
    curations: [{ query: "custom filters", hide: ["/api.html#custom-filters"] }],
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const r = await search(t, site.publicKey, "q=custom%20filters");
  assert.ok(!linked(r.body).includes("/api.html#custom-filters"), JSON.stringify(r.body.results));
  assert.ok(
    r.body.results.some((x: { url: string }) => x.url.split("#")[0] === "/api.html"),
    "the page itself still shows",
  );
  assert.equal(r.body.meta.found, before.body.meta.found);
  // Hiding the page and pinning one of its sections in one curation cannot both hold.
  const both = await lever(t, site, "curations", {
    curations: [{ query: "x", pin: ["/api.html#rate-limits"], hide: ["/api.html"] }],
  });
  assert.equal(both.status, 400);
  assert.equal(both.body.error.param, "curations[0].hide[0]");
  t.close();
});

Deno.test("curations api - a section of a page the site does not have, or that the page does not have, is refused naming the entry, on save and in the preview", async () => {
  const t = await startApp();
  const site = await docsSite(t);
  await lever(t, site, "curations", { curations: [{ query: "keep", pin: ["/faq.html"] }] });
  const cases: [unknown, string, RegExp][] = [
    [
      [{ query: "filters", pin: ["/api.html#custom-filter"] }],
      "curations[0].pin[0]",
      /^The curation for “filters” pins \/api\.html#custom-filter, but \/api\.html has no section #custom-filter \(its sections: #search-endpoint, #custom-filters, #rate-limits\)\.$/,
    ],
    [
      [{ query: "filters", pin: ["/faq.html"] }, { query: "year", pin: ["/nope.html#year"] }],
      "curations[1].pin[0]",
      /^The curation for “year” pins \/nope\.html#year, but the site has no page \/nope\.html\.$/,
    ],
    [
      [{ query: "filters", pin: ["/guide.html"], hide: ["/faq.html#year"] }],
      "curations[0].hide[0]",
      /^The curation for “filters” hides \/faq\.html#year, but \/faq\.html has no section #year\.$/,
    ],
  ];
  for (const [curations, param, message] of cases) {
    const put = await lever(t, site, "curations", { curations });
    assert.equal(put.status, 400, JSON.stringify(curations));
    assert.equal(put.body.error.param, param);
    assert.match(put.body.error.message, message);
    const p = await preview(t, site, { q: "filters", curations });
    assert.equal(p.status, 400, JSON.stringify(curations));
    assert.equal(p.body.error.param, param);
    assert.match(p.body.error.message, message);
  }
  const kept = await lever(t, site, "curations");
  assert.deepEqual(kept.body.curations.map((c: { query: string }) => c.query), ["keep"]);
  // A pin of a whole page the site lacks is saved with a warning, which the preview gives first.
  const p = await preview(t, site, {
    q: "filters",
    curations: [{ query: "filters", pin: ["/gone.html"] }],
  });
  assert.equal(p.status, 200);
  assert.deepEqual(p.body.warnings.map((w: { url: string; reason: string }) => [w.url, w.reason]), [
    ["/gone.html", "page_not_found"],
  ]);
  assert.match(p.body.warnings[0].message, /the site has no such page/);
  t.close();
});

Deno.test("curations api - a stored section its page lost since is a warning, not a refusal of the next save, and the result links the page", async () => {
  const t = await startApp();
  const site = await docsSite(t);
  const put = await lever(t, site, "curations", {
    curations: [{ id: "c1", query: "filters", pin: ["/api.html#custom-filters"] }],
  });
  assert.equal(put.status, 200);
  // A recrawl: the page no longer has that section.
  const res = await t.call(`/api/admin/sites/${site.id}/pages`, {
    ...admin(site.adminKey, {
      pages: [{
        ...DOCS[0],
        sections: ANCHORED_DOCS[0].sections.filter((x) => x.anchor !== "custom-filters"),
      }],
    }),
    method: "PUT",
  });
  await res.body?.cancel();
  const got = await lever(t, site, "curations");
  assert.deepEqual(
    got.body.warnings.map((w: { url: string; reason: string }) => [w.url, w.reason]),
    [
      ["/api.html#custom-filters", "section_not_found"],
    ],
  );
  const r = await search(t, site.publicKey, "q=filters");
  assert.equal(r.body.results[0].url, "/api.html");
  assert.equal(r.body.results[0].pinned, true);
  // Another entry saved beside it: the list is accepted, the warning kept.
  const next = await lever(t, site, "curations", {
    curations: [...got.body.curations, { query: "year", pin: ["/faq.html"] }],
  });
  assert.equal(next.status, 200, JSON.stringify(next.body));
  assert.equal(next.body.warnings.length, 1);
  t.close();
});

Deno.test("curations api - a second curation for the same query says there is one already and to edit it", async () => {
  const t = await startApp();
  const site = await docsSite(t);
  const r = await lever(t, site, "curations", {
    curations: [
      { query: "Filters", pin: ["/guide.html"] },
      { query: "year", pin: ["/faq.html"] },
      { query: "  filters ", pin: ["/api.html#custom-filters"] },
    ],
  });
  assert.equal(r.status, 400);
  assert.equal(r.body.error.param, "curations[2].query");
  assert.equal(
    r.body.error.message,
    "There is a curation for “Filters” already (curations[0]): edit that one instead.",
  );
  t.close();
});
