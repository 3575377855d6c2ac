/**
 * Stated names in a snapshot as lines of JSON (query/stated.ts, snapshot_codec.ts stated
 * block version 2), which the pass after a load parses a line at a time rather than in one
 * go on the event loop; a block saved by the version before (one line) still loads.
 */
import assert from "node:assert/strict";
import { type PageInput, PageStore } from "../../lib/sites/pages.ts";
import { SearchIndexes } from "../../lib/search/mod.ts";
import { packIndex, Snapshots, unpackIndex } from "../../lib/search/snapshots.ts";
import {
  forgetStated,
  pagesMined,
  statedEquivalences,
  statedSettled,
} from "../../lib/search/engine/query/stated.ts";
import { loadedIndex } from "../../lib/search/site_index.ts";

const SITE = "site_parts";
const PAGE_COUNT = 450;

/** A catalogue of invented tools: every third page names one by its initials. */
const PAGES: PageInput[] = Array.from({ length: PAGE_COUNT }, (_, i) => ({
  url: `/tools/${i}`,
  title: `Tool ${i}`,
  body: i % 3
    ? `Tool ${i} is kept on shelf ${i % 17} and lent for ${i % 5 + 1} days.`
    : `The Garden Rake Model (GRM) is lent with tool ${i}. Return the GRM clean.`,
}));

const names = (list: { words: [string, string] }[]) => list.map((e) => e.words.join(" = ")).sort();

/** A site's pages in KV, its index built, its pass run and its snapshot saved. */
async function rig() {
  const kv = await Deno.openKv(":memory:");
  const pages = new PageStore(kv, Date.now);
  for (const p of PAGES) await pages.upsert(SITE, p, 10_000);
  const snapshots = new Snapshots(kv, Date.now);
  const built = new SearchIndexes(pages, { snapshots });
  await built.search(SITE, { query: "rake" });
  await built.idle();
  const stated = names(await built.stated(SITE));
  const shown = (await built.search(SITE, { query: "grm" })).hits.map((h) => h.url);
  // Nothing of this instance may run once a test forgets what was mined and counts what a
  // restart mines: its work after that search (read-ahead, rehearsal) is done first, and so is
  // the pass its save starts on the index the save compacted (begun later, that pass would
  // find nothing known and mine the pages again, counted as the restart's).
  await built.idle();
  await built.flush();
  await built.idle();
  built.discard();
  const saved = await snapshots.load(SITE, (await pages.version(SITE)).version);
  assert.ok(saved?.stated, "the snapshot holds what was mined");
  return { kv, pages, snapshots, saved, stated, shown };
}

/** The framed stated block's version field in snapshot bytes, set to `version` (a copy). */
function statedVersionAs(bytes: Uint8Array, version: number): Uint8Array {
  const out = bytes.slice();
  const magic = [0x53, 0x53, 0x53, 0x54]; // "SSST" little-endian
  let at = out.length - 4;
  while (at >= 0 && magic.some((b, k) => out[at + k] !== b)) at--;
  assert.ok(at >= 0, "the stated block is framed under its magic");
  new DataView(out.buffer).setUint32(at + 4, version, true);
  return out;
}

/** A snapshot's stated names block as lines: its list, then its pages' rows. */
function linesOf(stated: Uint8Array | undefined) {
  assert.ok(stated, "the snapshot holds stated names");
  const [list, ...rows] = new TextDecoder().decode(stated).split("\n");
  return { list: JSON.parse(list).list as unknown[], rows };
}

Deno.test("stated parts - a snapshot keeps 450 pages' stated names as their list and three JSON lines of 200 pages at most, and a load takes them all up without mining a page", async () => {
  const { kv, pages, snapshots, saved, stated, shown } = await rig();
  assert.deepEqual(stated, ["grm = garden rake model"]);
  assert.equal(shown.length, 10);
  const { list, rows: lines } = linesOf(saved.stated);
  assert.equal(list.length, 1);
  assert.equal(lines.length, 3);
  const rows = lines.map((l) => JSON.parse(l) as unknown[]);
  assert.ok(rows.every((r) => r.length <= 200));
  assert.equal(rows.flat().length, PAGE_COUNT, "one row for each page mined");

  // A restarted process: the loaded index states the same names, and its first search shows
  // what the built one showed once its pass was done, with no page mined again.
  forgetStated();
  const before = pagesMined();
  const restarted = new SearchIndexes(pages, { snapshots });
  assert.deepEqual((await restarted.search(SITE, { query: "grm" })).hits.map((h) => h.url), shown);
  assert.deepEqual(names(await restarted.stated(SITE)), stated);
  assert.equal(pagesMined(), before, "no page was mined again");
  restarted.discard();
  await restarted.idle();
  kv.close();
});

Deno.test("stated parts - stated names saved in one JSON line by the block's version before still load without mining a page; an unknown version refuses the snapshot", async () => {
  const { kv, saved, stated } = await rig();
  const lines = linesOf(saved.stated).rows;
  const oneLine = new TextEncoder().encode(JSON.stringify(lines.flatMap((l) => JSON.parse(l))));
  const packed = packIndex(saved, { passages: saved.passages, stated: oneLine });
  forgetStated();
  const before = pagesMined();
  const old = unpackIndex(statedVersionAs(packed, 1), saved.version);
  assert.ok(old.stated, "a version 1 block loads");
  assert.deepEqual(names(statedEquivalences(loadedIndex(old, Date.now).db)), stated);
  assert.equal(pagesMined(), before, "no page was mined again");
  assert.throws(() => unpackIndex(statedVersionAs(packed, 3), saved.version), /version 3/);
  kv.close();
});

Deno.test("stated parts - a loaded index's stated names are settled before its pass, equal to those merged from its pages' rows", async () => {
  const { kv, saved } = await rig();
  forgetStated();
  const before = pagesMined();
  const idx = loadedIndex(saved, Date.now);
  assert.ok(statedSettled(idx.db), "settled at once: a search waits for no pass");
  const fromList = statedEquivalences(idx.db);
  // The same snapshot without its list line: the rows are taken up and merged.
  const rows = new TextEncoder().encode(linesOf(saved.stated).rows.join("\n"));
  const packed = packIndex(saved, { passages: saved.passages, stated: rows });
  forgetStated();
  const other = loadedIndex(unpackIndex(packed, saved.version), Date.now);
  assert.ok(!statedSettled(other.db));
  assert.deepEqual(statedEquivalences(other.db), fromList);
  assert.equal(pagesMined(), before, "no page was mined again");
  kv.close();
});
