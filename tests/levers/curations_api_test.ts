import assert from "node:assert/strict";
import { admin, createSite, numberedPages, putPages, search, startApp } from "../helpers.ts";
import { lever, SHOP, urls } from "./helpers.ts";

Deno.test("curations api - pinned pages come first on page 1 in the order given, marked pinned, even when the query does not match them", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  await putPages(t, site, SHOP);
  const before = await search(t, site.publicKey, "q=refund");
  assert.deepEqual(urls(before.body).sort(), ["/old/refunds", "/support/refunds"]);
  const put = await lever(t, site, "curations", {
    curations: [{ query: "Refund", match: "exact", pin: ["/contact", "/support/refunds"] }],
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.match(put.body.curations[0].id, /^cur_/);
  assert.deepEqual(put.body.warnings, []);
  const r = await search(t, site.publicKey, "q=REFUND");
  assert.deepEqual(urls(r.body), ["/contact", "/support/refunds", "/old/refunds"]);
  assert.deepEqual(r.body.results.map((x: { pinned?: boolean }) => x.pinned ?? false), [
    true,
    true,
    false,
  ]);
  assert.equal(r.body.meta.found, 3, "the pinned page that does not match counts as found");
  // Page 2 never repeats the pins.
  const p2 = await search(t, site.publicKey, "q=refund&per_page=2&page=2");
  assert.deepEqual(urls(p2.body), ["/old/refunds"]);
  assert.equal(p2.body.results[0].pinned, undefined);
  // Exact means the whole query: "refund policy" is not curated.
  const other = await search(t, site.publicKey, "q=refund%20policy");
  assert.ok(!urls(other.body).includes("/contact"));
  t.close();
});

Deno.test("curations api - hidden pages never show for the query, on any page, and contains matches any query holding the phrase", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  await putPages(t, site, SHOP);
  await lever(t, site, "curations", {
    curations: [{ query: "refund", match: "contains", hide: ["/old/refunds"] }],
  });
  for (const q of ["refund", "how do I get a REFUND?", "refund policy"]) {
    for (const page of [1, 2]) {
      const r = await search(
        t,
        site.publicKey,
        `q=${encodeURIComponent(q)}&per_page=1&page=${page}`,
      );
      assert.ok(!urls(r.body).includes("/old/refunds"), `${q} page ${page}`);
      assert.equal(r.body.meta.found, 1, q);
    }
  }
  // A query without the whole word is not curated.
  const r = await search(t, site.publicKey, "q=refunds");
  assert.ok(urls(r.body).includes("/old/refunds"));
  t.close();
});

Deno.test("curations api - a pin of a page that no longer exists is skipped for visitors and reported to the owner", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  await putPages(t, site, SHOP);
  const put = await lever(t, site, "curations", {
    curations: [{ id: "c1", query: "hoodie", pin: ["/gone", "/hoodies"] }],
  });
  assert.equal(put.status, 200);
  assert.deepEqual(put.body.warnings.map((w: { url: string }) => w.url), ["/gone"]);
  const r = await search(t, site.publicKey, "q=hoodie");
  assert.equal(r.status, 200);
  assert.deepEqual(urls(r.body), ["/hoodies"]);
  // A page removed after it was pinned: skipped, and the owner's GET says so.
  const del = await t.call(`/api/admin/sites/${site.id}/pages?url=/hoodies`, {
    ...admin(site.adminKey),
    method: "DELETE",
  });
  await del.body?.cancel();
  const after = await search(t, site.publicKey, "q=hoodie");
  assert.equal(after.status, 200);
  assert.deepEqual(urls(after.body), []);
  const got = await lever(t, site, "curations");
  assert.deepEqual(
    got.body.warnings.map((w: { url: string; curation: string; reason: string }) => [
      w.curation,
      w.url,
      w.reason,
    ]),
    [["c1", "/gone", "page_not_found"], ["c1", "/hoodies", "page_not_found"]],
  );
  t.close();
});

Deno.test("curations api - a cached answer does not survive a curation change", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  await putPages(t, site, SHOP);
  await search(t, site.publicKey, "q=cotton");
  const cached = await search(t, site.publicKey, "q=cotton");
  assert.equal(cached.body.results[0].pinned, undefined);
  await lever(t, site, "curations", { curations: [{ query: "cotton", pin: ["/contact"] }] });
  const r = await search(t, site.publicKey, "q=cotton");
  assert.equal(urls(r.body)[0], "/contact");
  await lever(t, site, "curations", { curations: [] });
  assert.notEqual(urls((await search(t, site.publicKey, "q=cotton")).body)[0], "/contact");
  t.close();
});

Deno.test("curations api - a bad entry is a 400 naming its field, and nothing is stored", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  await lever(t, site, "curations", { curations: [{ query: "keep", pin: ["/keep"] }] });
  const pins = (n: number) => Array.from({ length: n }, (_, i) => `/p${i}`);
  const cases: [unknown, string][] = [
    [{ curations: [{ query: "", pin: ["/a"] }] }, "curations[0].query"],
    [{ curations: [{ query: "x".repeat(201), pin: ["/a"] }] }, "curations[0].query"],
    [{ curations: [{ query: "a", match: "fuzzy", pin: ["/a"] }] }, "curations[0].match"],
    [{ curations: [{ query: "a", pin: ["/a", "https://evil.example/"] }] }, "curations[0].pin[1]"],
    [{ curations: [{ query: "a", pin: ["/a", "/a"] }] }, "curations[0].pin[1]"],
    [{ curations: [{ query: "a", pin: pins(11) }] }, "curations[0].pin"],
    [{ curations: [{ query: "a", hide: pins(51) }] }, "curations[0].hide"],
    [{ curations: [{ query: "a", pin: ["/a"], hide: ["/b", "/a"] }] }, "curations[0].hide[1]"],
    [{ curations: [{ query: "a" }] }, "curations[0].pin"],
    [{ curations: [{ query: "a", pin: "/a" }] }, "curations[0].pin"],
    [{ curations: [{ query: "a", pin: ["/a"], boost: 2 }] }, "curations[0].boost"],
    [
      { curations: [{ query: "A b", pin: ["/a"] }, { query: "a  B", pin: ["/b"] }] },
      "curations[1].query",
    ],
    [
      { curations: Array.from({ length: 501 }, (_, i) => ({ query: `q${i}`, pin: ["/a"] })) },
      "curations",
    ],
  ];
  for (const [body, param] of cases) {
    const r = await lever(t, site, "curations", body);
    assert.equal(r.status, 400, JSON.stringify(body).slice(0, 200));
    assert.equal(r.body.error.param, param, JSON.stringify(r.body));
  }
  const kept = await lever(t, site, "curations");
  assert.deepEqual(kept.body.curations.map((c: { query: string }) => c.query), ["keep"]);
  // At the limits exactly: accepted.
  const full = await lever(t, site, "curations", {
    curations: Array.from(
      { length: 500 },
      (_, i) => ({ query: `q${i}`, pin: pins(10), hide: pins(60).slice(10) }),
    ),
  });
  assert.equal(full.status, 200);
  assert.equal(full.body.curations.length, 500);
  t.close();
});

Deno.test("curations api - a hidden page is never an AI answer's source for that question", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  await putPages(t, site, SHOP);
  const ask = async (query: string) => {
    const res = await t.call("/api/summarize", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-API-Key": site.publicKey },
      body: JSON.stringify({ query }),
    });
    const body = await res.json();
    assert.equal(res.status, 200, JSON.stringify(body));
    return body.sources.map((s: { url?: string }) => s.url?.split("#")[0]);
  };
  const question = "What is the refund policy?";
  assert.ok((await ask(question)).includes("/old/refunds"), "cited before the curation");
  await lever(t, site, "curations", {
    curations: [{ query: "refund", match: "contains", hide: ["/old/refunds"] }],
  });
  const after = await ask(question);
  assert.ok(!after.includes("/old/refunds"), `not cited after: ${after}`);
  t.close();
});

Deno.test("curations api - with many matches, counts and pages stay exact: hidden ones never listed, pins only once", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  await putPages(t, site, [...numberedPages(30), { url: "/about", title: "About", body: "Us." }]);
  await lever(t, site, "curations", {
    curations: [{ query: "widget", pin: ["/about", "/p/7"], hide: ["/p/29", "/p/3", "/p/12"] }],
  });
  const seen: string[] = [];
  for (let page = 1; page <= 4; page++) {
    const r = await search(t, site.publicKey, `q=widget&per_page=8&page=${page}`);
    assert.equal(r.body.meta.found, 30 - 3 + 1, `page ${page}`);
    seen.push(...urls(r.body));
  }
  assert.equal(seen.length, 28);
  assert.equal(new Set(seen).size, 28, "no page twice");
  assert.deepEqual(seen.slice(0, 2), ["/about", "/p/7"]);
  for (const hidden of ["/p/29", "/p/3", "/p/12"]) assert.ok(!seen.includes(hidden), hidden);
  t.close();
});
