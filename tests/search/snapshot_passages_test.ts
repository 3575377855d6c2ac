/**
 * Long pages' passages kept in a site's snapshot (snapshots.ts, engine/query/passages.ts):
 * an index loaded from it ranks long pages as the rebuilt one does once its pass has run,
 * with no pass and nothing read in the process; a snapshot saved before they were kept loads.
 */
import assert from "node:assert/strict";
import { type PageInput, PageStore } from "../../lib/sites/pages.ts";
import { SearchIndexes } from "../../lib/search/mod.ts";
import { docAt, rank, type SiteDb } from "../../lib/search/engine/mod.ts";
import { packIndex, Snapshots, unpackIndex } from "../../lib/search/snapshots.ts";
import { forgetPassages } from "../../lib/search/engine/query/passages.ts";
import { prepareIndex } from "../../lib/search/engine/query/rank.ts";
import { buildIndex, loadedIndex } from "../../lib/search/site_index.ts";

/** Filler prose of `n` words that holds no query word (a handbook's other topics). */
const filler = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => `matter${(i * 5 + seed) % 89}`).join(" ") + ".";

/** A long guide (ten sections of 160 words) that says each query word in its own section. */
const guide = (n: number): PageInput => {
  const words: Record<number, string> = { 1: "prune", 3: "orchard", 6: "trees", 8: "winter" };
  const sections = Array.from({ length: 10 }, (_, i) => ({
    heading: `Guide ${n} step ${i + 1}`,
    text: `${filler(160, i + n)} ${words[i] ? `${words[i]} `.repeat(5) : ""}`,
  }));
  return {
    url: `/guide-${n}`,
    title: `The gardener's handbook, part ${n}`,
    body: sections.map((s) => `${s.heading}\n${s.text}`).join("\n"),
    sections: sections.map((s, i) => ({ heading: s.heading, anchor: `g${i}` })),
  };
};

/** A short page whose one section says every query word together. */
const short: PageInput = {
  url: "/pruning",
  title: "Seasonal chores",
  body: "Spring\nSow the beds.\nCold months\nPrune the orchard trees in winter, before buds swell.",
  sections: [{ heading: "Spring", anchor: "s" }, { heading: "Cold months", anchor: "c" }],
};

const QUERY = "prune orchard trees winter";
const SITE = "site_passages";

const urls = (db: SiteDb) => rank(db, QUERY, { limit: 10 }).ids.map((i) => docAt(db, i, 0).id);

/** A site of four long guides and the short page, in a KV of its own. */
async function rig() {
  const kv = await Deno.openKv(":memory:");
  const pages = new PageStore(kv, Date.now);
  for (const p of [1, 2, 3, 4].map(guide)) await pages.upsert(SITE, p, 10_000);
  await pages.upsert(SITE, short, 10_000);
  const snapshots = new Snapshots(kv, Date.now);
  const instance = () => new SearchIndexes(pages, { snapshots });
  return { kv, pages, snapshots, instance };
}

Deno.test("snapshot passages - an index loaded from its snapshot ranks long pages as the rebuilt one after its pass, with no pass and nothing read", async () => {
  const { kv, pages, snapshots, instance } = await rig();
  const built = instance();
  await built.top(SITE, { query: QUERY, limit: 10 });
  await built.idle(); // the pass after the build has read every guide
  const prepared = (await built.top(SITE, { query: QUERY, limit: 10 })).map((d) => d.id);
  assert.equal(prepared[0], "/pruning", "the page whose one section answers comes first");
  assert.equal(prepared.length, 5);
  await built.flush();

  const { version } = await pages.version(SITE);
  const saved = await snapshots.load(SITE, version);
  assert.ok(saved?.passages, "the snapshot holds the passages");
  assert.equal(
    saved.passages.ids.length,
    4,
    "one row for each long guide, none for the short page",
  );

  // A restarted process: no page's passages read, and no pass run on the loaded index.
  forgetPassages();
  const idx = loadedIndex(saved, Date.now);
  assert.deepEqual(urls(idx.db), prepared);

  // The same index without the block (a snapshot saved before passages were kept): its first
  // search reads the guides it ranks itself, before any pass, and ranks them as after it.
  forgetPassages();
  const old = unpackIndex(packIndex(saved), version);
  assert.equal(old.passages, undefined);
  assert.deepEqual(urls(old.db), prepared, "before its pass, as after it");
  for (const _ of prepareIndex(old.db));
  assert.deepEqual(urls(old.db), prepared);
  kv.close();
});

Deno.test("snapshot passages - a snapshot saved before passages were kept still loads, answers as a rebuild, and is not saved again unchanged", async () => {
  const { kv, pages, snapshots, instance } = await rig();
  const first = instance();
  await first.search(SITE, { query: QUERY });
  await first.idle();
  const prepared = await first.search(SITE, { query: QUERY });
  first.discard();
  // What an earlier release saved: the same framing with no block after the codec's bytes.
  const built = await buildIndex(pages, SITE, Date.now);
  const bytes = packIndex(built);
  assert.equal(unpackIndex(bytes, built.version).passages, undefined);
  const wrote = await snapshots.save(
    SITE,
    built.version,
    () => Promise.resolve({ version: built.version, bytes }),
  );
  assert.ok(wrote, "the old-style snapshot was written");
  const head = await snapshots.head(SITE);

  forgetPassages();
  const next = instance();
  await next.search(SITE, { query: QUERY });
  assert.deepEqual(next.opened, { loaded: 1, built: 0 }, "loaded, not rebuilt");
  await next.idle();
  assert.deepEqual(await next.search(SITE, { query: QUERY }), prepared);
  await next.flush();
  assert.equal((await snapshots.head(SITE))?.gen, head?.gen, "an unchanged index is not saved");
  kv.close();
});

Deno.test("snapshot passages - a damaged passages block is never loaded: the snapshot is refused whole", async () => {
  const { kv, pages, snapshots, instance } = await rig();
  const a = instance();
  await a.search(SITE, { query: QUERY });
  await a.idle();
  await a.flush();
  const { version } = await pages.version(SITE);
  const saved = (await snapshots.load(SITE, version))!;
  const bytes = packIndex(saved, { passages: saved.passages });
  assert.ok(unpackIndex(bytes, version).passages, "whole, it loads with its passages");
  for (const at of [bytes.length - 1, bytes.length - 40]) {
    const bad = bytes.slice();
    bad[at] ^= 0x10;
    assert.throws(() => unpackIndex(bad, version), /corrupt/, `byte ${at}`);
  }
  kv.close();
});
