import assert from "node:assert/strict";
import { admin, createSite, OPERATOR, putPages, search, startApp } from "../helpers.ts";
import { Levers } from "../../lib/levers/levers.ts";
import { lever, SHOP, urls } from "./helpers.ts";

Deno.test("synonyms api - a two-way group and a one-way mapping are stored with ids and found by search at once", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  await putPages(t, site, SHOP);
  assert.equal((await search(t, site.publicKey, "q=tee")).body.meta.found, 0);
  assert.equal((await search(t, site.publicKey, "q=nyc")).body.meta.found, 0);
  const put = await lever(t, site, "synonyms", {
    synonyms: [{ words: ["tee", "t-shirt", "tshirt"] }, {
      id: "big-apple",
      word: "nyc",
      means: ["new york"],
    }],
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.equal(put.body.synonyms.length, 2);
  assert.match(put.body.synonyms[0].id, /^syn_[A-Za-z0-9]{12}$/);
  assert.equal(put.body.synonyms[1].id, "big-apple");
  assert.deepEqual((await lever(t, site, "synonyms")).body.synonyms, put.body.synonyms);
  // Two-way: each word of the group finds the pages of the others.
  assert.deepEqual(urls((await search(t, site.publicKey, "q=tee")).body), ["/shirts"]);
  assert.deepEqual(urls((await search(t, site.publicKey, "q=tshirt")).body), ["/shirts"]);
  // One-way: nyc finds New York's page; "new york" does not find pages that say nyc.
  assert.deepEqual(urls((await search(t, site.publicKey, "q=nyc")).body), ["/stores"]);
  await putPages(t, site, [{ url: "/nyc-blog", title: "NYC diary", body: "A week in nyc." }]);
  const ny = urls((await search(t, site.publicKey, "q=new%20york")).body);
  assert.ok(!ny.includes("/nyc-blog"), `one-way only: ${ny}`);
  t.close();
});

Deno.test("synonyms api - a phrase in the query is found as its synonym, and a typo of a synonym still finds the target", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  await putPages(t, site, SHOP);
  await lever(t, site, "synonyms", {
    synonyms: [{ word: "sweatshirt", means: ["hoodies"] }, { words: ["big apple", "new york"] }],
  });
  assert.deepEqual(urls((await search(t, site.publicKey, "q=sweatshrit")).body), ["/hoodies"]);
  assert.deepEqual(urls((await search(t, site.publicKey, "q=swaetshirt%20")).body), ["/hoodies"]);
  assert.deepEqual(
    urls((await search(t, site.publicKey, "q=big%20apple%20stores")).body)[0],
    "/stores",
  );
  // No "Showing results for …" invented for the word the synonym stood for.
  const r = await search(t, site.publicKey, "q=sweatshirt");
  assert.equal(r.body.meta.corrections, undefined);
  t.close();
});

Deno.test("synonyms api - a change replaces a cached answer: the next search shows it within a second", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  await putPages(t, site, SHOP);
  assert.equal((await search(t, site.publicKey, "q=jumper")).body.meta.found, 0);
  assert.equal((await search(t, site.publicKey, "q=jumper")).body.meta.found, 0); // cached now
  const started = performance.now();
  await lever(t, site, "synonyms", { synonyms: [{ words: ["jumper", "hoodies"] }] });
  assert.deepEqual(urls((await search(t, site.publicKey, "q=jumper")).body), ["/hoodies"]);
  assert.ok(performance.now() - started < 1000);
  await lever(t, site, "synonyms", { synonyms: [] });
  assert.equal((await search(t, site.publicKey, "q=jumper")).body.meta.found, 0);
  t.close();
});

Deno.test("synonyms api - another instance's change shows in this one's searches within a second", async () => {
  const dir = await Deno.makeTempDir();
  const a = await startApp({ kvPath: `${dir}/kv.sqlite`, indexStaleMs: 200 });
  const b = await startApp({ kvPath: `${dir}/kv.sqlite`, indexStaleMs: 200 });
  const site = await createSite(a, "pro");
  await putPages(a, site, SHOP);
  assert.equal((await search(b, site.publicKey, "q=jumper")).body.meta.found, 0);
  await lever(a, site, "synonyms", { synonyms: [{ words: ["jumper", "hoodies"] }] });
  const started = performance.now();
  let found = 0;
  while (performance.now() - started < 1000 && found === 0) {
    found = (await search(b, site.publicKey, "q=jumper")).body.meta.found;
    if (!found) await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(found, 1, "seen by the other instance within 1 s");
  a.close();
  b.close();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("synonyms api - a bad entry is a 400 naming its field, and nothing is stored", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  await lever(t, site, "synonyms", { synonyms: [{ words: ["a1", "b1"] }] });
  const cases: [unknown, string][] = [
    [{ synonyms: [{ words: ["ok", "fine"] }, { words: ["x"] }] }, "synonyms[1].words"],
    [{ synonyms: [{ words: ["ok", "one two three four five"] }] }, "synonyms[0].words[1]"],
    [{ synonyms: [{ words: ["ok", 7] }] }, "synonyms[0].words[1]"],
    [{ synonyms: [{ words: ["ok", "  "] }] }, "synonyms[0].words[1]"],
    [{ synonyms: [{ words: ["Ok", "ok"] }] }, "synonyms[0].words[1]"],
    [{ synonyms: [{ word: "nyc" }] }, "synonyms[0].means"],
    [{ synonyms: [{ word: "nyc", means: ["NYC"] }] }, "synonyms[0].means[0]"],
    [{ synonyms: [{ word: "nyc", means: ["x"], words: ["a", "b"] }] }, "synonyms[0].words"],
    [{ synonyms: [{ words: ["a", "b"], colour: "red" }] }, "synonyms[0].colour"],
    [{ synonyms: [{ id: "x y", words: ["a", "b"] }] }, "synonyms[0].id"],
    [
      { synonyms: [{ id: "s", words: ["a", "b"] }, { id: "s", words: ["c", "d"] }] },
      "synonyms[1].id",
    ],
    [{ synonyms: [{ words: ["a", "x".repeat(65)] }] }, "synonyms[0].words[1]"],
    [{ synonyms: "tee" }, "synonyms"],
    [{}, "synonyms"],
    [[], "body"],
    [
      { synonyms: Array.from({ length: 1001 }, (_, i) => ({ words: [`a${i}`, `b${i}`] })) },
      "synonyms",
    ],
  ];
  for (const [body, param] of cases) {
    const r = await lever(t, site, "synonyms", body);
    assert.equal(r.status, 400, JSON.stringify(body).slice(0, 200));
    assert.equal(r.body.error.code, "INVALID_PARAMETER");
    assert.equal(r.body.error.param, param, JSON.stringify(r.body));
  }
  const kept = await lever(t, site, "synonyms");
  assert.deepEqual(kept.body.synonyms.map((s: { words: string[] }) => s.words), [["a1", "b1"]]);
  t.close();
});

Deno.test("synonyms api - 1,000 entries of long phrases are kept across KV values and read back whole", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  const long = (i: number, j: number) => `phrase${i}x${j} ${"é".repeat(20)} word${j} end${i}`;
  const synonyms = Array.from({ length: 1000 }, (_, i) => ({
    words: Array.from({ length: 20 }, (_, j) => long(i, j)),
  }));
  const put = await lever(t, site, "synonyms", { synonyms });
  assert.equal(put.status, 200, JSON.stringify(put.body).slice(0, 300));
  // Every KV value of the list is within KV's limit of 64 KiB.
  let values = 0;
  for await (const e of t.kv.list({ prefix: ["levers", site.id] })) {
    values++;
    assert.ok(new TextEncoder().encode(JSON.stringify(e.value)).length < 65_536);
  }
  assert.ok(values > 10, `split over ${values} values`);
  // Another instance reads it back whole.
  const other = await new Levers(t.kv, t.services.clock).current(site.id);
  assert.equal(other.synonyms.length, 1000);
  assert.deepEqual(other.synonyms[999], put.body.synonyms[999]);
  // And a search with all of them compiled still answers at once.
  const started = performance.now();
  assert.equal((await search(t, site.publicKey, "q=phrase999x3")).status, 200);
  assert.ok(performance.now() - started < 500);
  t.close();
});

Deno.test("synonyms api - a site admin key reaches only its own site's synonyms; a public key none", async () => {
  const t = await startApp();
  const a = await createSite(t, "pro");
  const b = await createSite(t, "pro");
  const res = await t.call(`/api/admin/sites/${b.id}/synonyms`, {
    headers: { Authorization: `Bearer ${a.adminKey}` },
  });
  assert.equal(res.status, 404);
  await res.body?.cancel();
  const pub = await t.call(`/api/admin/sites/${a.id}/synonyms`, {
    headers: { Authorization: `Bearer ${a.publicKey}` },
  });
  assert.equal(pub.status, 401);
  await pub.body?.cancel();
  const del = await t.call(`/api/admin/sites/${a.id}/synonyms`, {
    method: "DELETE",
    headers: { Authorization: `Bearer ${a.adminKey}` },
  });
  assert.equal(del.status, 405);
  assert.match(del.headers.get("allow") ?? "", /^GET, PUT\b/);
  await del.body?.cancel();
  t.close();
});

Deno.test("synonyms api - deleting a site removes its synonyms and curations from KV", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  await lever(t, site, "synonyms", { synonyms: [{ words: ["a1", "b1"] }] });
  await lever(t, site, "curations", { curations: [{ query: "a", pin: ["/a"] }] });
  const keys = async () => {
    let n = 0;
    for await (const _ of t.kv.list({ prefix: ["levers", site.id] })) n++;
    return n;
  };
  assert.ok(await keys() >= 4);
  const res = await t.call(`/api/admin/sites/${site.id}`, { ...admin(OPERATOR), method: "DELETE" });
  assert.equal(res.status, 200);
  await res.body?.cancel();
  assert.equal(await keys(), 0);
  t.close();
});
