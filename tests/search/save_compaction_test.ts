/**
 * A save of an index changed since it was last packed compacts it again (site_index.ts
 * snapshotOf): after the save it holds what a load of that snapshot holds, not its old bytes
 * beside the arrays the save's encoding sealed. It compacts in slices: other tenants' requests
 * are answered between them, and the bytes are those of a compaction in one go.
 */
import assert from "node:assert/strict";
import { PageStore } from "../../lib/sites/pages.ts";
import { SearchIndexes, Snapshots } from "../../lib/search/mod.ts";
import { noteSearch } from "../../lib/search/activity.ts";
import { buildIndex, compact, snapshotOf } from "../../lib/search/site_index.ts";
import { answersOf } from "./sites.ts";

const SITE = "site_save_compact";
const WORDS = ["lantern", "compass", "anchor", "rudder", "sextant", "hammock", "galley", "keel"];
const QUERIES = ["lantern", "compass care", "ruddr", "keel 12", "polish", "zzz nothing"];

const page = (i: number, edit = "") => ({
  url: `/docs/${WORDS[i % WORDS.length]}/${i}`,
  title: `${WORDS[i % WORDS.length]} ${i} — Chandlery`,
  body: `Caring for the ${WORDS[i % WORDS.length]} ${i}\nPolish it yearly${edit}.`,
});

const answers = (ix: SearchIndexes) => answersOf(ix, SITE, QUERIES, 5);

Deno.test("save compaction - an index saved after a few changes holds what a load of its snapshot holds, with the same answers", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const pages = new PageStore(kv, Date.now);
    const instance = () => new SearchIndexes(pages, { snapshots: new Snapshots(kv, Date.now) });
    for (let i = 0; i < 400; i++) await pages.upsert(SITE, page(i), 1_000);
    const a = instance();
    await a.refresh(SITE); // built from 400 pages: compacted at once
    await a.flush();
    // A few pages changed and added: too few to compact at the catch-up.
    for (let i = 0; i < 20; i++) await pages.upsert(SITE, page(i, " and oil the hinges"), 1_000);
    for (let i = 400; i < 420; i++) await pages.upsert(SITE, page(i), 1_000);
    await a.refresh(SITE);
    const expected = await answers(a);
    await a.flush();
    await a.idle(); // the pass again after the save's compaction
    const saved = a.held().bytes;

    const b = instance(); // a new instance loads the snapshot the save wrote
    await b.refresh(SITE);
    assert.deepEqual(b.opened, { loaded: 1, built: 0 });
    await b.idle(); // its pass after the load, as a's was done when it saved
    const loaded = b.held().bytes;
    assert.ok(
      Math.abs(saved - loaded) <= 0.02 * loaded,
      `${saved} held after the save, ${loaded} loaded`,
    );
    assert.deepEqual(await answers(a), expected);
    assert.deepEqual(await answers(b), expected);
    a.discard();
    b.discard();
  } finally {
    kv.close();
  }
});

/** A page of varied words, so the vocabulary and the postings are large enough to cost time. */
const bigPage = (i: number) => {
  const words = Array.from({ length: 400 }, (_, k) => `w${(i * 7919 + k * 104729) % 60_000}`);
  return {
    url: `/manual/${i}`,
    title: `Part ${i} — ${WORDS[i % WORDS.length]}`,
    body: `${WORDS[i % WORDS.length]} ${words.join(" ")}`,
  };
};

Deno.test("save compaction - a save compacts in slices: timers run between them, the bytes are those of one compaction in one go", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const pages = new PageStore(kv, Date.now);
    for (let i = 0; i < 1_500; i++) await pages.upsert(SITE, bigPage(i), 10_000);
    const whole = await buildIndex(pages, SITE, Date.now);
    const t0 = performance.now();
    compact(whole);
    const inOneGo = performance.now() - t0;
    const sliced = await buildIndex(pages, SITE, Date.now);
    assert.equal(sliced.loose, true);

    // A timer armed as the save starts, and again each time it fires: each turn of the event
    // loop it gets while the compaction runs is one a waiting request would get too.
    let turns = 0, longest = 0, last = performance.now(), saving = true;
    const tick = () => {
      const now = performance.now();
      longest = Math.max(longest, now - last), last = now;
      if (saving) turns++, setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
    const start = performance.now();
    const saved = await snapshotOf(sliced);
    const inSlices = performance.now() - start;
    saving = false;
    console.log(
      `1,500 pages: compacted in one go in ${inOneGo.toFixed(0)} ms; in slices: ${turns} turns ` +
        `over ${inSlices.toFixed(0)} ms, the longest wait ${longest.toFixed(1)} ms`,
    );
    assert.ok(turns >= 3, `${turns} turns while the save compacted`);
    // Set against the sliced save's own time, not the one-go run's: a collection or a busy core
    // that lands in one slice lengthens both sides alike, where the one-go time was taken earlier.
    assert.ok(
      longest < 0.6 * inSlices,
      `a turn waited ${longest} ms of the ${inSlices} the save took`,
    );
    assert.equal(sliced.loose, false);
    assert.deepEqual(sliced.packed!.bytes, whole.packed!.bytes);
    assert.ok(saved.bytes.length >= whole.packed!.bytes!.length);
  } finally {
    kv.close();
  }
});

Deno.test("save compaction - a save stands aside while searches come, and goes on once they stop or a change waits behind it", async () => {
  const kv = await Deno.openKv(":memory:");
  const searching = setInterval(noteSearch, 20); // another site's visitors, one every 20 ms
  try {
    const pages = new PageStore(kv, Date.now);
    for (let i = 0; i < 200; i++) await pages.upsert(SITE, bigPage(i), 10_000);
    const idx = await buildIndex(pages, SITE, Date.now);
    let saved = false;
    const save = snapshotOf(idx, true).then(() => saved = true);
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(saved, false, "saved while searches came");
    assert.equal(idx.loose, true, "compacted while searches came");
    clearInterval(searching);
    const quietAt = performance.now();
    await save;
    assert.equal(idx.loose, false);
    console.log(`saved ${(performance.now() - quietAt).toFixed(0)} ms after the last search`);

    // A change waiting behind the save: it stops standing aside though searches still come.
    const again = setInterval(noteSearch, 20);
    try {
      const other = await buildIndex(pages, SITE, Date.now);
      const run = snapshotOf(other, true);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(other.loose, true);
      other.waiting = 1;
      const t = performance.now();
      await run;
      assert.equal(other.loose, false);
      assert.ok(performance.now() - t < 5_000);
    } finally {
      clearInterval(again);
    }
  } finally {
    clearInterval(searching);
    kv.close();
  }
});
