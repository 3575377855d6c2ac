/**
 * Memory given back after an ingest without holding searches long (lib/memory_trim.ts): a
 * thorough collection when no one searches, finished before the upsert is answered; while
 * searches come, one plain collection at most once a gap, and the thorough one when they
 * pause. A save asked for before an upsert's catch-up ends at the version the upsert left.
 */
import assert from "node:assert/strict";
import { noteSearch, searchesPaused } from "../lib/search/activity.ts";
import { releaseMemoryNow } from "../lib/platform/memory_release.ts";
import { PageStore } from "../lib/sites/pages.ts";
import { SearchIndexes, Snapshots } from "../lib/search/mod.ts";

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A fake collector and trim that record what they were asked. */
function recorder() {
  const flavors: string[] = [];
  let trimmed = 0;
  return {
    flavors,
    trimmed: () => trimmed,
    collect: (o?: { flavor: string }) => void flavors.push(o!.flavor),
    trim: () => void trimmed++,
  };
}

Deno.test("memory after ingest - with no search for a while, a release is thorough, and its trim is done before it returns", async () => {
  await wait(60); // no search in this process for longer than quietMs
  const r = recorder();
  await releaseMemoryNow({ ...r, sweepMs: 5, settleMs: 30, quietMs: 50, gapMs: 0 });
  assert.deepEqual(r.flavors, ["last-resort"], "V8's last resort, which gives pages back");
  assert.equal(r.trimmed(), 1, "the allocator trimmed before the upsert is answered");
  await wait(80); // the settle after the burst: one more, thorough too
  assert.deepEqual(r.flavors, ["last-resort", "last-resort"]);
});

Deno.test("memory after ingest - while searches come, a release is one plain collection a gap, and the thorough one waits for them to pause", async () => {
  const r = recorder();
  const opts = { ...r, sweepMs: 5, settleMs: 20, quietMs: 60, settleMaxMs: 10_000 };
  noteSearch();
  assert.equal(searchesPaused(60), false);
  await releaseMemoryNow({ ...opts, gapMs: 0 });
  await releaseMemoryNow({ ...opts, gapMs: 60_000 }); // within the gap: nothing more
  await releaseMemoryNow({ ...opts, gapMs: 60_000 });
  assert.deepEqual(r.flavors, ["regular"], "one plain collection, no compaction of the heap");
  // Searches go on for 200 ms: the settle is due after 20 ms, yet waits for them.
  for (let i = 0; i < 10; i++) noteSearch(), await wait(20);
  assert.deepEqual(r.flavors, ["regular"], "nothing thorough while searches come");
  await wait(200);
  assert.ok(searchesPaused(60));
  assert.deepEqual(r.flavors, ["regular", "last-resort"], "the thorough one once they paused");
});

const SITE = "site_tail_save";
const page = (i: number) => ({
  url: `/kettles/${i}`,
  title: `Kettle ${i}`,
  body: `Kettle ${i} boils water; descale it monthly. Model ${i * 7}.`,
});

Deno.test("memory after ingest - a save asked for before an upsert's catch-up ends at the version the upsert left, which a restart loads", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const pages = new PageStore(kv, Date.now);
    const snapshots = () => ({ snapshots: new Snapshots(kv, Date.now), saveDelayMs: 0 });
    const a = new SearchIndexes(pages, { ...snapshots() });
    for (let i = 0; i < 10; i++) await pages.upsert(SITE, page(i), 1_000);
    await a.refresh(SITE); // built: its save is asked for at once (saveDelayMs 0)
    await wait(0);
    for (let i = 10; i < 160; i++) await pages.upsert(SITE, page(i), 1_000);
    await a.refresh(SITE); // the catch-up the save waited behind
    await a.flush();
    await wait(50);
    await a.flush();
    const { version } = await pages.version(SITE);
    assert.equal((await snapshots().snapshots.head(SITE))?.version, version);
    const b = new SearchIndexes(pages, { ...snapshots() });
    const found = await b.search(SITE, { query: "kettle 150", perPage: 5 });
    assert.deepEqual(b.opened, { loaded: 1, built: 0 }, "the restart loads the snapshot");
    assert.deepEqual(found, await a.search(SITE, { query: "kettle 150", perPage: 5 }));
    a.discard();
    b.discard();
  } finally {
    kv.close();
  }
});

Deno.test("memory after ingest - every read of an index counts as a search: results, answers' top pages and stated names hold a thorough release back", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const pages = new PageStore(kv, Date.now);
    const indexes = new SearchIndexes(pages);
    for (let i = 0; i < 3; i++) await pages.upsert(SITE, page(i), 1_000);
    const reads = [
      () => indexes.search(SITE, { query: "kettle", perPage: 5 }),
      () => indexes.top(SITE, { query: "descale", limit: 3 }),
      () => indexes.stated(SITE),
    ];
    for (const read of reads) {
      await wait(70);
      assert.ok(searchesPaused(60), "quiet before the read");
      await read();
      assert.equal(searchesPaused(60), false, "a thorough release would hold this reader");
    }
    indexes.discard();
  } finally {
    kv.close();
  }
});
