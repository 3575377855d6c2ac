/** Index snapshots in KV: saved whole, loaded only when they match, never served stale. */
import assert from "node:assert/strict";
import { PageStore } from "../../lib/sites/pages.ts";
import { IndexBudget, SearchIndexes } from "../../lib/search/mod.ts";
import { CHUNK_BYTES, Snapshots } from "../../lib/search/snapshots.ts";
import { CODEC_VERSION, decodeSiteDb } from "../../lib/search/engine/snapshot_codec.ts";
import {
  admin,
  createSite,
  indexBytesOf,
  OPERATOR,
  putPages,
  randomWords,
  search,
  startApp,
} from "../helpers.ts";

const SITE = "site_snap";
const TOPICS = ["kettle", "teapot", "saucer", "grinder", "strainer", "infuser", "caddy", "whisk"];
const QUERIES = [
  "kettle",
  "teapot care",
  "grind",
  "straner", // a typo: corrections come from the vocabulary
  "caddy 3",
  "crème brûlée",
  "how to descale",
  "wh",
  "zzz nothing",
];

/** Pages with a shared site name in their titles, sections, accents and one long body. */
function corpus(n: number) {
  return Array.from({ length: n }, (_, i) => {
    const topic = TOPICS[i % TOPICS.length];
    const body = [
      `Using your ${topic}`,
      `The ${topic} number ${i} is described here; descale it monthly.`,
      "Cleaning",
      `Wash the ${topic} by hand. Serve with crème brûlée ${i % 3 ? "" : "and café au lait"}.`,
      // One page long enough to span several snapshot chunks on its own.
      i === 0 ? `${topic} steeping leaves and water ${randomWords(40_000)}` : "",
    ].join("\n");
    return {
      url: `/docs/${topic}/${i}`,
      title: `${topic[0].toUpperCase()}${topic.slice(1)} ${i} — Tea Shop`,
      description: i % 2 ? `All about ${topic} ${i}.` : undefined,
      body,
      lang: i % 5 ? "en" : undefined,
      sections: [{ heading: `Using your ${topic}`, anchor: "using" }, {
        heading: "Cleaning",
        anchor: "cleaning",
      }],
    };
  });
}

interface Rig {
  kv: Deno.Kv;
  pages: PageStore;
  snapshots: Snapshots;
  /** A new instance's indexes on the same KV (nothing in memory). */
  instance: (budget?: number) => SearchIndexes;
}

async function rig(n = 40): Promise<Rig> {
  const kv = await Deno.openKv(":memory:");
  const pages = new PageStore(kv, Date.now);
  for (const p of corpus(n)) await pages.upsert(SITE, p, 10_000);
  const snapshots = new Snapshots(kv, Date.now);
  const instance = (budget = Infinity) =>
    new SearchIndexes(pages, { budget, snapshots: new Snapshots(kv, Date.now) });
  return { kv, pages, snapshots, instance };
}

/** Every query's results (first two pages) and summary retrieval, as one comparable value. */
async function answers(ix: SearchIndexes, site = SITE) {
  const out = [];
  for (const q of QUERIES) {
    out.push(
      await ix.search(site, { query: q, perPage: 5 }),
      await ix.search(site, { query: q, page: 2, perPage: 5 }),
    );
    out.push(
      (await ix.top(site, { query: q, limit: 3, maxChars: 200 })).map((
        d,
      ) => [d.id, d.title, d.headings, d.body]),
    );
  }
  return out;
}

/** Keys under the snapshot space, as "part/part/…" strings. */
async function snapshotKeys(kv: Deno.Kv, site = SITE): Promise<string[]> {
  const keys: string[] = [];
  for await (const e of kv.list({ prefix: ["snappage", site] })) keys.push(e.key.join("/"));
  return keys;
}

Deno.test("snapshot - an index saved by one instance is loaded by another and answers every query identically", async () => {
  const { kv, snapshots, instance } = await rig();
  const a = instance();
  const expected = await answers(a);
  assert.equal(a.opened.built, 1);
  await a.flush();
  const head = await snapshots.head(SITE);
  assert.ok(head, "a snapshot was saved after the build");
  assert.equal(head.codec, CODEC_VERSION);
  assert.equal(head.version, 40, "tagged with the index version it holds");
  assert.ok(head.chunks > 1, "the long page spans several chunks");
  for await (const e of kv.list<Uint8Array>({ prefix: ["snappage", SITE, "chunk"] })) {
    assert.ok(e.value.length <= CHUNK_BYTES && CHUNK_BYTES < 65_536);
  }

  const b = instance();
  assert.deepEqual(await answers(b), expected);
  assert.deepEqual(b.opened, { loaded: 1, built: 0 }, "loaded, not rebuilt");
  await b.flush();
  assert.equal(
    (await snapshots.head(SITE))?.gen,
    head.gen,
    "an unchanged index is not saved again",
  );
  kv.close();
});

Deno.test("snapshot - once saved, a built index is kept as a load gives it: the same answers, counted smaller", async () => {
  const { kv, instance } = await rig();
  const a = instance();
  const expected = await answers(a);
  await a.idle(); // its pass done: what it keeps is counted in both figures
  const built = a.held().bytes;
  await a.flush();
  await a.idle(); // the pass again after the save's compaction
  const kept = a.held().bytes;
  assert.ok(kept < built, `${kept} bytes kept after the save, ${built} as built`);
  assert.deepEqual(await answers(a), expected);
  const b = instance();
  await answers(b);
  assert.equal(b.opened.loaded, 1);
  await b.idle(); // its pass after the load, as a's was done when it saved
  assert.ok(Math.abs(b.held().bytes - kept) <= 0.01 * kept, "counted as a loaded one is");
  kv.close();
});

Deno.test("snapshot - pages changed after a snapshot are caught up from the log, never served stale", async () => {
  const { kv, pages, snapshots, instance } = await rig();
  const a = instance();
  await a.search(SITE, { query: "kettle", perPage: 5 });
  await a.flush();
  const saved = (await snapshots.head(SITE))!;

  await pages.upsert(SITE, {
    url: "/docs/new",
    title: "Samovar — Tea Shop",
    body: "A samovar boils water for a whole family.",
  }, 10_000);
  await pages.remove(SITE, "/docs/kettle/0");
  await pages.upsert(SITE, { url: "/docs/kettle/8", title: "Kettle 8", body: "Now a bell." }, 1e4);

  const b = instance();
  const samovar = await b.search(SITE, { query: "samovar", perPage: 5 });
  assert.deepEqual(samovar.hits.map((h) => h.url), ["/docs/new"]);
  const kettles = (await b.search(SITE, { query: "kettle", perPage: 50 })).hits.map((h) =>
    h.url.split("#")[0]
  );
  assert.ok(!kettles.includes("/docs/kettle/0"), "a removed page is gone");
  assert.equal(
    (await b.search(SITE, { query: "bell", perPage: 5 })).hits[0]?.url,
    "/docs/kettle/8",
  );
  assert.deepEqual(b.opened, { loaded: 1, built: 0 }, "the older snapshot was caught up");
  // The answers match an index built from the pages as they are now.
  const fresh = new SearchIndexes(pages);
  assert.deepEqual(await answers(b), await answers(fresh));

  await b.flush();
  const head = (await snapshots.head(SITE))!;
  assert.equal(head.version, saved.version + 3, "a fresh snapshot replaces the stale one");
  assert.notEqual(head.gen, saved.gen);
  const keys = await snapshotKeys(kv);
  assert.ok(!keys.some((k) => k.includes(saved.gen)), "the old generation's chunks are deleted");
  kv.close();
});

Deno.test("snapshot - a snapshot whose change log has a gap is ignored and the index rebuilt", async () => {
  const { kv, pages, snapshots, instance } = await rig(12);
  const a = instance();
  await a.search(SITE, { query: "kettle", perPage: 5 });
  await a.flush();
  const saved = (await snapshots.head(SITE))!;
  await pages.upsert(SITE, { url: "/docs/x", title: "Samovar", body: "A samovar." }, 1e4);
  await kv.delete(["pagelog", SITE, saved.version + 1]); // expired from the log
  const b = instance();
  assert.equal((await b.search(SITE, { query: "samovar", perPage: 5 })).hits[0]?.url, "/docs/x");
  assert.deepEqual(b.opened, { loaded: 1, built: 0 });
  assert.deepEqual(await answers(b), await answers(new SearchIndexes(pages)));
  b.discard();
  kv.close();
});

Deno.test("snapshot - a damaged, missing or foreign chunk, or another codec's snapshot, falls back to a rebuild", async () => {
  const { kv, snapshots, instance } = await rig();
  const a = instance();
  const expected = await answers(a);
  await a.flush();
  const head = (await snapshots.head(SITE))!;
  const chunk = (i: number) => ["snappage", SITE, "chunk", head.gen, i];
  const original = (await kv.get<Uint8Array>(chunk(1))).value!;

  const damage: [string, () => Promise<unknown>][] = [
    ["a flipped byte", () => kv.set(chunk(1), original.map((b, i) => i === 100 ? b ^ 1 : b))],
    ["a missing chunk", () => kv.delete(chunk(1))],
    ["a short chunk", () => kv.set(chunk(1), original.subarray(10))],
    ["a string chunk", () => kv.set(chunk(1), "not bytes")],
    ["another codec", () => kv.set(["snappage", SITE, "head"], { ...head, codec: -1 })],
  ];
  for (const [what, spoil] of damage) {
    await spoil();
    assert.equal(await snapshots.load(SITE, head.version), null, what);
    const b = instance();
    assert.deepEqual(await answers(b), expected, what);
    assert.deepEqual(b.opened, { loaded: 0, built: 1 }, `${what}: rebuilt`);
    b.discard();
    await kv.set(chunk(1), original);
    await kv.set(["snappage", SITE, "head"], head);
  }
  // A rebuilt index saves a good snapshot again, which the next instance loads.
  await kv.delete(chunk(1));
  const c = instance();
  await c.search(SITE, { query: "kettle", perPage: 5 });
  await c.flush();
  assert.notEqual((await snapshots.head(SITE))?.gen, head.gen);
  const d = instance();
  assert.deepEqual(await answers(d), expected);
  assert.deepEqual(d.opened, { loaded: 1, built: 0 });
  assert.ok(!(await snapshotKeys(kv)).some((k) => k.includes(head.gen)));
  kv.close();
});

Deno.test("snapshot - a chunk missing or cut anywhere in a snapshot read in parallel ranges is never loaded", async () => {
  const { kv, snapshots, instance } = await rig();
  const a = instance();
  await answers(a);
  await a.flush();
  const head = (await snapshots.head(SITE))!;
  assert.ok(head.chunks >= 3, `a snapshot of several chunks (${head.chunks})`);
  const chunk = (i: number) => ["snappage", SITE, "chunk", head.gen, i];
  for (const i of [0, Math.floor(head.chunks / 2), head.chunks - 1]) {
    const original = (await kv.get<Uint8Array>(chunk(i))).value!;
    await kv.delete(chunk(i));
    assert.equal(await snapshots.load(SITE, head.version), null, `chunk ${i} missing`);
    await kv.set(chunk(i), original.subarray(0, original.length - 1));
    assert.equal(await snapshots.load(SITE, head.version), null, `chunk ${i} cut short`);
    await kv.set(chunk(i), original);
  }
  // A stray chunk past the last, as a longer save would leave it.
  await kv.set(chunk(head.chunks), new Uint8Array(10));
  assert.equal(await snapshots.load(SITE, head.version), null, "a chunk past the last");
  await kv.delete(chunk(head.chunks));
  assert.ok(await snapshots.load(SITE, head.version), "whole again, it loads");
  kv.close();
});

Deno.test("snapshot - the codec refuses bytes it did not write", () => {
  for (const bytes of [new Uint8Array(0), new Uint8Array(64), new TextEncoder().encode("{}")]) {
    assert.throws(() => decodeSiteDb(bytes));
  }
});

Deno.test("snapshot - two instances saving one site at once leave one whole snapshot and no stray chunks", async () => {
  const { kv, snapshots, instance } = await rig();
  const a = instance(), b = instance();
  const [ra, rb] = await Promise.all([answers(a), answers(b)]);
  assert.deepEqual(ra, rb);
  await Promise.all([a.flush(), b.flush()]);
  const head = (await snapshots.head(SITE))!;
  const keys = await snapshotKeys(kv);
  assert.deepEqual(
    keys.filter((k) => !k.endsWith("/head")),
    Array.from({ length: head.chunks }, (_, i) => `snappage/${SITE}/chunk/${head.gen}/${i}`),
    "only the published generation's chunks (no lease, no half-written generation)",
  );
  const c = instance();
  assert.deepEqual(await answers(c), ra);
  assert.equal(c.opened.loaded, 1);
  kv.close();
});

Deno.test("snapshot - under a tiny memory budget evicted sites come back from their snapshots with the same answers", async () => {
  const kv = await Deno.openKv(":memory:");
  const pages = new PageStore(kv, Date.now);
  const sites = ["s_a", "s_b", "s_c"];
  for (const [i, site] of sites.entries()) {
    for (const p of corpus(8 + i)) await pages.upsert(site, p, 1e4);
  }
  const ix = new SearchIndexes(pages, { budget: 1, snapshots: new Snapshots(kv, Date.now) });
  const first = [];
  for (const site of sites) first.push(await answers(ix, site)); // each evicts the one before
  await ix.flush();
  assert.equal(ix.loaded, 1);
  assert.equal(ix.opened.built, 3);
  for (const [i, site] of sites.entries()) assert.deepEqual(await answers(ix, site), first[i]);
  assert.equal(ix.opened.loaded, 3, "evicted sites were loaded from snapshots, not rebuilt");
  assert.equal(ix.opened.built, 3);
  kv.close();
});

Deno.test("snapshot - deleting a site deletes its snapshots with everything else", async () => {
  const t = await startApp({ indexSnapshots: true });
  const doomed = await createSite(t, "pro", "Doomed");
  const kept = await createSite(t, "pro", "Kept");
  for (const site of [doomed, kept]) {
    await putPages(t, site, corpus(6).map(({ sections: _, ...p }) => p));
    assert.equal((await search(t, site.publicKey, "q=kettle")).status, 200);
  }
  await t.services.indexes.flush();
  const spaces = async (id: string) => {
    const found = new Set<string>();
    for await (const e of t.kv.list({ prefix: [] })) {
      if (e.key[1] === id) found.add(String(e.key[0]));
    }
    return found;
  };
  assert.ok((await spaces(doomed.id)).has("snappage"));
  // A change just before the delete leaves a save pending: it must not outlive the site.
  await putPages(t, doomed, [{ url: "/late", title: "Late", body: "A late kettle." }]);
  const res = await t.call(`/api/admin/sites/${doomed.id}`, {
    ...admin(OPERATOR),
    method: "DELETE",
  });
  assert.equal(res.status, 200);
  await res.body?.cancel();
  await t.services.indexes.flush();
  assert.deepEqual([...await spaces(doomed.id)], [], "nothing of the site is left");
  assert.ok((await spaces(kept.id)).has("snappage"), "the other site keeps its snapshot");
  t.services.indexes.discard();
  t.close();
});

Deno.test("snapshot - a repeated search of an evicted site is answered from the result cache without loading it, and a change made meanwhile is never hidden", async () => {
  const t = await startApp({ indexSnapshots: true, indexMemoryBytes: 1 });
  const a = await createSite(t, "pro", "A");
  const b = await createSite(t, "pro", "B");
  await putPages(t, a, [{ url: "/kettle", title: "Kettle", body: "A kettle boils water." }]);
  await putPages(t, b, [{ url: "/teapot", title: "Teapot", body: "A teapot steeps tea." }]);
  const first = await search(t, a.publicKey, "q=kettle");
  assert.equal((await search(t, b.publicKey, "q=teapot")).body.meta.found, 1); // evicts A
  await t.services.indexes.flush();
  const { indexes } = t.services;
  const opened = { ...indexes.opened };
  const again = await search(t, a.publicKey, "q=kettle");
  assert.deepEqual(again.body, first.body);
  assert.deepEqual(indexes.opened, opened, "answered from the cache: A was not loaded");
  assert.equal(indexes.loaded, 1);

  // Another instance's write (straight to KV, no refresh here) while A is not in memory.
  await t.services.pages.upsert(
    a.id,
    { url: "/kettle2", title: "Kettle two", body: "A second kettle." },
    100,
  );
  const after = await search(t, a.publicKey, "q=kettle");
  assert.equal(after.body.meta.found, 2, "the new page is found, not the cached answer");
  assert.equal(indexes.opened.loaded, opened.loaded + 1, "A came back from its snapshot");
  indexes.discard();
  t.close();
});

Deno.test("budget - page and document indexes share one memory budget: documents held count when pages are evicted", async () => {
  const kv = await Deno.openKv(":memory:");
  const pages = new PageStore(kv, Date.now, "page");
  const documents = new PageStore(kv, Date.now, "doc");
  const page = (word: string) => ({ url: `/${word}`, title: word, body: `${word} `.repeat(200) });
  for (const site of ["a", "b", "d"]) await pages.upsert(site, page(`word${site}`), 10);
  await documents.upsert("c", page("manual"), 10);
  // Room for about two of these one-page sites (each alike: same text length).
  const one = await indexBytesOf([page("worda")]);
  const budget = new IndexBudget(2.5 * one);
  const pageIx = new SearchIndexes(pages, { budget });
  const docIx = new SearchIndexes(documents, { budget });
  await pageIx.search("a", { query: "worda", perPage: 5 });
  await pageIx.search("b", { query: "wordb", perPage: 5 });
  assert.equal(pageIx.loaded, 2, "two sites fit");
  assert.equal((await docIx.search("c", { query: "manual", perPage: 5 })).found, 1);
  assert.equal((await pageIx.search("d", { query: "wordd", perPage: 5 })).found, 1);
  assert.equal(pageIx.loaded, 1, "the document index's share made room for only one page index");
  assert.equal(docIx.loaded, 1);
  assert.equal(
    (await pageIx.search("a", { query: "worda", perPage: 5 })).found,
    1,
    "an evicted site answers",
  );
  kv.close();
});
