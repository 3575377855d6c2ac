/**
 * A save of an index changed since it was last packed compacts it again (site_index.ts
 * snapshotOf): after the save it holds what a load of that snapshot holds, not its old bytes
 * beside the arrays the save's encoding sealed.
 */
import assert from "node:assert/strict";
import { PageStore } from "../../lib/sites/pages.ts";
import { SearchIndexes, Snapshots } from "../../lib/search/mod.ts";
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
