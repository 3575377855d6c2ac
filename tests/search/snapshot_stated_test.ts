/**
 * Stated names kept in a site's snapshot (snapshots.ts, engine/query/stated.ts): an index
 * loaded from it offers the names its pages state without mining a page again; a snapshot saved
 * before they were kept loads and is mined as before; a page changed since is mined anew.
 */
import assert from "node:assert/strict";
import { type PageInput, PageStore } from "../../lib/sites/pages.ts";
import { SearchIndexes } from "../../lib/search/mod.ts";
import { CHUNK_BYTES, packIndex, Snapshots, unpackIndex } from "../../lib/search/snapshots.ts";
import {
  forgetStated,
  pagesMined,
  statedEquivalences,
} from "../../lib/search/engine/query/stated.ts";
import { loadedIndex } from "../../lib/search/site_index.ts";

const SITE = "site_stated";

/** Pages of an invented plant nursery, some stating a short name for a long one. */
const PAGES: PageInput[] = [
  {
    url: "/soil",
    title: "Soil",
    body: "Every bed gets Slow Release Compost (SRC) in spring. Spread SRC thinly.",
  },
  {
    url: "/water",
    title: "Watering",
    body: "The Drip Line Timer (DLT) opens at dawn. Check the DLT after frost.",
  },
  { url: "/hours", title: "Opening hours", body: "Open every day but Monday, from nine to five." },
];

const names = (list: { words: [string, string] }[]) => list.map((e) => e.words.join(" = ")).sort();

async function rig() {
  const kv = await Deno.openKv(":memory:");
  const pages = new PageStore(kv, Date.now);
  for (const p of PAGES) await pages.upsert(SITE, p, 10_000);
  const snapshots = new Snapshots(kv, Date.now);
  const instance = () => new SearchIndexes(pages, { snapshots });
  // The names the built index states once its pass has mined every page, saved in its snapshot.
  const built = instance();
  await built.search(SITE, { query: "compost" });
  await built.idle();
  const stated = names(await built.stated(SITE));
  await built.flush();
  built.discard();
  return { kv, pages, snapshots, instance, stated };
}

Deno.test("snapshot stated - an index loaded from its snapshot states the same names without mining a page", async () => {
  const { kv, pages, snapshots, stated } = await rig();
  assert.deepEqual(stated, [
    "dlt = drip line timer",
    "src = slow release compost",
  ]);
  const saved = await snapshots.load(SITE, (await pages.version(SITE)).version);
  assert.ok(saved?.stated, "the snapshot holds what was mined");

  forgetStated(); // a restarted process: no page mined yet
  const before = pagesMined();
  const idx = loadedIndex(saved, Date.now);
  assert.deepEqual(names(statedEquivalences(idx.db)), stated);
  assert.equal(pagesMined(), before, "no page was mined again");
  kv.close();
});

Deno.test("snapshot stated - a snapshot saved before stated names were kept loads and mines its pages as before", async () => {
  const { kv, pages, snapshots, stated } = await rig();
  const { version } = await pages.version(SITE);
  const saved = (await snapshots.load(SITE, version))!;
  const old = unpackIndex(packIndex(saved, { passages: saved.passages }), version);
  assert.equal(old.stated, undefined);

  forgetStated();
  const before = pagesMined();
  assert.deepEqual(names(statedEquivalences(old.db)), stated);
  assert.equal(pagesMined() - before, PAGES.length, "each page mined once");
  kv.close();
});

Deno.test("snapshot stated - a page changed after the snapshot is mined anew when the loaded index catches up", async () => {
  const { kv, pages, instance } = await rig();
  await pages.upsert(SITE, {
    url: "/water",
    title: "Watering",
    body: "The Rain Barrel Valve (RBV) opens at dawn. Check the RBV after frost.",
  }, 10_000);

  forgetStated();
  const before = pagesMined();
  const next = instance();
  await next.search(SITE, { query: "valve" });
  assert.deepEqual(next.opened, { loaded: 1, built: 0 }, "loaded, then caught up");
  await next.idle();
  assert.deepEqual(names(await next.stated(SITE)), [
    "rbv = rain barrel valve",
    "src = slow release compost",
  ]);
  assert.equal(pagesMined() - before, 1, "only the changed page was mined");
  next.discard();
  kv.close();
});

Deno.test("snapshot stated - a damaged stated names block is never loaded: the snapshot is refused whole", async () => {
  const { kv, pages, snapshots } = await rig();
  const { version } = await pages.version(SITE);
  const saved = (await snapshots.load(SITE, version))!;
  const bytes = packIndex(saved, { passages: saved.passages, stated: saved.stated });
  assert.ok(unpackIndex(bytes, version).stated, "whole, it loads with its stated names");
  for (const back of [1, 9, 40]) {
    const bad = bytes.slice();
    bad[bad.length - back] ^= 0x5a;
    assert.throws(() => unpackIndex(bad, version), `byte ${back} from the end`);
  }
  kv.close();
});

Deno.test("snapshot stated - stated names spanning several chunks load whole, apart from the index's bytes", async () => {
  const { kv, pages, snapshots } = await rig();
  const { version } = await pages.version(SITE);
  const saved = (await snapshots.load(SITE, version))!;
  // Rows of pages no longer there (harmless: only a page with the same text key takes them up).
  const rows = Array.from(
    { length: 8_000 },
    (_, i) => [`/a-page-long-gone-${i}\u00000\u0000${i}`, []],
  );
  const stated = new TextEncoder().encode(JSON.stringify(rows));
  assert.ok(stated.length > 2 * CHUNK_BYTES, "more than two chunks of them");
  const bytes = packIndex(saved, { passages: saved.passages, stated });
  await kv.delete(["snappage", SITE, "head"]); // saved over, at the same version
  assert.ok(await snapshots.save(SITE, version, () => Promise.resolve({ version, bytes })));
  const head = (await snapshots.head(SITE))!;
  assert.ok(head.chunks >= 4 && head.statedBytes! > 2 * CHUNK_BYTES);
  const loaded = await snapshots.load(SITE, version);
  assert.ok(loaded, "loaded, not refused");
  assert.deepEqual(loaded.stated, stated);
  assert.equal([...loaded.db.docs.sizes()].length, [...saved.db.docs.sizes()].length);
  kv.close();
});
