/**
 * A large upsert leaves its site's index compact, answering as before: at once where the host
 * frees memory when told, else at its save; memory given back soon.
 */
import assert from "node:assert/strict";
import { PageStore } from "../../lib/sites/pages.ts";
import { searchesPaused, SearchIndexes, Snapshots } from "../../lib/search/mod.ts";
import { releaseMemorySoon } from "../../lib/platform/memory_release.ts";
import { useMemoryRelease } from "../../lib/memory_release.ts";

const SITE = "site_compact";
const WORDS = ["kettle", "teapot", "saucer", "grinder", "strainer", "infuser", "caddy", "whisk"];
const QUERIES = ["kettle", "teapot care", "straner", "caddy 12", "descale", "wh", "zzz nothing"];

const page = (i: number) => ({
  url: `/docs/${WORDS[i % WORDS.length]}/${i}`,
  title: `${WORDS[i % WORDS.length]} ${i} — Tea Shop`,
  body: `Using the ${WORDS[i % WORDS.length]} ${i}\nDescale it monthly; serve café au lait.`,
});

async function answers(ix: SearchIndexes) {
  const out = [];
  for (const q of QUERIES) {
    out.push(await ix.search(SITE, { query: q, perPage: 5 }));
    out.push(
      (await ix.top(SITE, { query: q, limit: 3, maxChars: 200 })).map((
        d,
      ) => [d.id, d.title, d.body]),
    );
  }
  return out;
}

/**
 * Builds 10 pages, catches up 150 more and returns the instance with what it held after the
 * catch-up's pass and after its save, and whether a load of that save answers alike.
 */
async function upsertThenSave(kv: Deno.Kv) {
  const pages = new PageStore(kv, Date.now);
  const instance = () => new SearchIndexes(pages, { snapshots: new Snapshots(kv, Date.now) });
  for (let i = 0; i < 10; i++) await pages.upsert(SITE, page(i), 1_000);
  const a = instance();
  await a.refresh(SITE); // built from 10 pages: small, left as built until its save
  for (let i = 10; i < 160; i++) await pages.upsert(SITE, page(i), 1_000);
  // Compaction waits for a quiet spell (search/activity.ts): a test's searches before are past.
  while (!searchesPaused()) await new Promise((r) => setTimeout(r, 50));
  await a.refresh(SITE); // caught up by 150 pages
  await a.idle(); // and its pass done (what it keeps is counted)
  const caughtUp = a.held().bytes; // before any search keeps scores
  await a.flush();
  const saved = a.held().bytes;

  const b = instance(); // a new instance loads the snapshot the save wrote
  await b.refresh(SITE);
  assert.deepEqual(b.opened, { loaded: 1, built: 0 });
  await b.idle();
  const loaded = b.held().bytes;
  assert.ok(Math.abs(loaded - saved) <= 0.01 * saved, `${loaded} vs ${saved}`);
  assert.deepEqual(await answers(b), await answers(a));
  a.discard();
  b.discard();
  return { caughtUp, saved };
}

Deno.test("compaction - where the host frees memory when told, an upsert of 150 pages is compacted at once: its save finds nothing left to compact", async () => {
  const kv = await Deno.openKv(":memory:");
  let released = 0;
  useMemoryRelease({ now: () => (released++, Promise.resolve()), soon: () => released++ });
  try {
    const { caughtUp, saved } = await upsertThenSave(kv);
    assert.equal(saved, caughtUp, "the save found nothing left to compact");
    assert.ok(released > 0, "what the compaction left was given back");
  } finally {
    useMemoryRelease(null);
    kv.close();
  }
});

Deno.test("compaction - otherwise an upsert of 150 pages is left loose for its save to compact once, with the same answers", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const { caughtUp, saved } = await upsertThenSave(kv);
    // Compacting at each upsert of a burst only made garbage for V8 to collect seconds later.
    assert.ok(caughtUp > saved, `loose until saved: ${caughtUp} then ${saved}`);
  } finally {
    kv.close();
  }
});

Deno.test("compaction - memory is given back once after a burst of releases: one collection, then one trim after the sweep", async () => {
  let collected = 0, trimmed = 0;
  const opts = { gapMs: 60_000, sweepMs: 10, collect: () => collected++, trim: () => trimmed++ };
  releaseMemorySoon(opts);
  releaseMemorySoon(opts); // pending: the same release
  assert.equal(collected, 0, "not while the caller's request is still being answered");
  await new Promise((r) => setTimeout(r, 40));
  releaseMemorySoon(opts); // within the gap: nothing more
  await new Promise((r) => setTimeout(r, 40));
  assert.deepEqual({ collected, trimmed }, { collected: 1, trimmed: 1 });
});
