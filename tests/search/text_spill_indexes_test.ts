/**
 * Indexes whose pages' text is kept in a file (lib/storage/text_spill.ts) answer as those that
 * keep it in memory: built and compacted, saved and loaded by another instance, and caught up
 * after pages are replaced and removed (a removal reads the old text to take its words out of
 * the vocabulary), and evicted and loaded again under a tiny budget; the text is then in the
 * file, not in the index's buffers.
 */
import assert from "node:assert/strict";
import { PageStore } from "../../lib/sites/pages.ts";
import { SearchIndexes, Snapshots } from "../../lib/search/mod.ts";
import { TextSpill } from "../../lib/storage/text_spill.ts";
import { answersOf } from "./sites.ts";

const SITE = "site_text_spill";
const WORDS = ["lantern", "compass", "anchor", "rudder", "sextant", "hammock", "galley", "keel"];
const QUERIES = ["lantern", "compass care", "ruddr", "keel 12", "polish hinges", "oil", "zzz"];

const page = (i: number, edit = "") => ({
  url: `/docs/${WORDS[i % WORDS.length]}/${i}`,
  title: `${WORDS[i % WORDS.length]} ${i} — Chandlery`,
  body: `Caring for the ${WORDS[i % WORDS.length]} ${i}\n` +
    `Polish it yearly${edit}. `.repeat(40) + `\nStowing the ${WORDS[(i + 3) % 8]} below deck.`,
});

/**
 * Runs `test` on a fresh KV with a spill in a temporary directory, and instances reading it:
 * `inFile` keeps its pages' text in the spill (under `budget` bytes), `inMemory` in memory.
 */
async function withSpill(
  test: (t: {
    pages: PageStore;
    spill: TextSpill;
    inFile: (budget?: number) => SearchIndexes;
    inMemory: () => SearchIndexes;
  }) => Promise<void>,
) {
  const kv = await Deno.openKv(":memory:");
  const dir = await Deno.makeTempDir();
  const spill = TextSpill.open(dir)!;
  const keepBodies = (b: Uint8Array) => spill.keep(b);
  const pages = new PageStore(kv, Date.now);
  try {
    await test({
      pages,
      spill,
      inFile: (budget = Infinity) =>
        new SearchIndexes(pages, {
          budget,
          snapshots: new Snapshots(kv, Date.now, "page", keepBodies),
          keepBodies,
        }),
      inMemory: () => new SearchIndexes(pages, { snapshots: new Snapshots(kv, Date.now) }),
    });
  } finally {
    spill.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("text spill - indexes with their text in a file answer as those with it in memory, across a save, a load and changes", () =>
  withSpill(async ({ pages, spill, inFile, inMemory }) => {
    for (let i = 0; i < 300; i++) await pages.upsert(SITE, page(i), 1_000);
    const a = inFile(), plain = inMemory();
    await a.refresh(SITE); // built from 300 pages
    await plain.refresh(SITE);
    const want = await answersOf(plain, SITE, QUERIES);
    assert.ok(want.filter((r) => r.hits.length).length >= 5, "most queries find pages");
    assert.deepEqual(await answersOf(a, SITE, QUERIES), want);
    await a.flush(); // saved: compacted, its text to the file (and in the snapshot)
    assert.ok(spill.stats().liveBytes > 0, "the text is in the file");
    assert.deepEqual(await answersOf(a, SITE, QUERIES), want);

    const b = inFile(); // another instance loads the snapshot, its text to the file
    await b.refresh(SITE);
    assert.deepEqual(b.opened, { loaded: 1, built: 0 });
    assert.deepEqual(await answersOf(b, SITE, QUERIES), want);

    // Pages replaced and removed: each instance catches up, reading the old text from the file.
    for (let i = 0; i < 150; i++) await pages.upsert(SITE, page(i, " and oil the hinges"), 1_000);
    for (let i = 280; i < 300; i++) await pages.remove(SITE, page(i).url);
    for (const ix of [a, b, plain]) await ix.refresh(SITE);
    const changed = await answersOf(plain, SITE, QUERIES);
    assert.notDeepEqual(changed, want, "the changes show");
    assert.deepEqual(await answersOf(a, SITE, QUERIES), changed);
    assert.deepEqual(await answersOf(b, SITE, QUERIES), changed);
    await b.flush();
    const c = inMemory(); // a snapshot saved from the file loads where text stays in memory
    await c.refresh(SITE);
    assert.deepEqual(c.opened, { loaded: 1, built: 0 });
    assert.deepEqual(await answersOf(c, SITE, QUERIES), changed);
    for (const ix of [a, b, c, plain]) ix.discard();
  }));

Deno.test("text spill - under a tiny budget, sites evicted and loaded again read their text from the file as it was", () =>
  withSpill(async ({ pages, spill, inFile, inMemory }) => {
    const sites = ["spill_a", "spill_b", "spill_c"];
    for (const [k, site] of sites.entries()) {
      for (let i = k; i < 150 + k; i++) await pages.upsert(site, page(i, k ? ` ${k}` : ""), 1_000);
    }
    const plain = inMemory();
    const want = [];
    for (const site of sites) want.push(await answersOf(plain, site, QUERIES));
    const tiny = inFile(1); // each site opened evicts the one before
    for (const site of sites) await answersOf(tiny, site, QUERIES);
    await tiny.flush(); // every site saved
    for (let round = 0; round < 3; round++) {
      for (const [k, site] of sites.entries()) {
        assert.deepEqual(await answersOf(tiny, site, QUERIES), want[k], `${site}, round ${round}`);
      }
    }
    assert.ok(tiny.opened.loaded >= 6, `${tiny.opened.loaded} loads from snapshots`);
    assert.equal(tiny.loaded, 1);
    assert.ok(spill.stats().fileBytes >= spill.stats().liveBytes);
    for (const ix of [plain, tiny]) ix.discard();
  }));
