/** A large upsert leaves its site's index compact at once, answering as before; memory given back soon. */
import assert from "node:assert/strict";
import { PageStore } from "../../lib/sites/pages.ts";
import { SearchIndexes, Snapshots } from "../../lib/search/mod.ts";
import { releaseMemorySoon } from "../../lib/platform/memory_release.ts";

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

Deno.test("compaction - an upsert of 150 pages leaves the index counted as a load of its snapshot, with the same answers", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const pages = new PageStore(kv, Date.now);
    const instance = () => new SearchIndexes(pages, { snapshots: new Snapshots(kv, Date.now) });
    for (let i = 0; i < 10; i++) await pages.upsert(SITE, page(i), 1_000);
    const a = instance();
    await a.refresh(SITE); // built from 10 pages: small, left as built until its save
    for (let i = 10; i < 160; i++) await pages.upsert(SITE, page(i), 1_000);
    await a.refresh(SITE); // caught up by 150 pages: compacted at once
    await a.idle(); // and its pass done (what it keeps is counted)
    const held = a.held().bytes; // before any search keeps scores
    await a.flush();
    assert.equal(a.held().bytes, held, "the save found nothing left to compact");

    const b = instance(); // a new instance loads the snapshot the save wrote
    await b.refresh(SITE);
    assert.deepEqual(b.opened, { loaded: 1, built: 0 });
    await b.idle();
    assert.ok(Math.abs(b.held().bytes - held) <= 0.01 * held, `${b.held().bytes} vs ${held}`);
    assert.deepEqual(await answers(b), await answers(a));
    a.discard();
    b.discard();
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
