/**
 * After a site's index is built and saved, while no one searches, its pages' heading lines are
 * read ahead (site_index.ts readAheadAfterPass): a site's first searches then read none, and
 * answer as they would have without it. While searches come, nothing is read ahead.
 */
import assert from "node:assert/strict";
import { PageStore } from "../../lib/sites/pages.ts";
import { SearchIndexes, Snapshots } from "../../lib/search/mod.ts";
import { answersOf } from "./sites.ts";
import { keptHeadingsBytes } from "../../lib/search/engine/query/heading_words.ts";
import type { SiteDb } from "../../lib/search/engine/store/site_db.ts";

const SITE = "site_read_ahead";
const TOOLS = ["lantern", "compass", "anchor", "rudder", "sextant", "hammock", "galley", "keel"];
const QUERIES = ["lantern care", "compass polish", "rudder hinges", "storing the keel", "anchor"];

const page = (i: number) => {
  const tool = TOOLS[i % TOOLS.length];
  const sections = [`Caring for the ${tool}`, `Storing the ${tool} ${i}`, "Polish and hinges"];
  return {
    url: `/docs/${tool}/${i}`,
    title: `${tool} ${i}`,
    body: sections.map((h) => `${h}\nKeep the ${tool} dry; polish it yearly.`).join("\n"),
    sections: sections.map((heading, k) => ({ heading, anchor: `s${k}` })),
  };
};

/** The site's index as its searches read it (the headings kept are counted per index). */
const dbOf = (ix: SearchIndexes) =>
  (ix as unknown as { built: Map<string, { db: SiteDb }> }).built.get(SITE)!.db;

const pause = () => new Promise((r) => setTimeout(r, 300)); // longer than a search's hold

const answers = (ix: SearchIndexes) => answersOf(ix, SITE, QUERIES);

Deno.test("read ahead - a site's headings are read while no one searches, and its first searches read none and answer the same", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const pages = new PageStore(kv, Date.now);
    for (let i = 0; i < 120; i++) await pages.upsert(SITE, page(i), 1_000);
    const instance = () => new SearchIndexes(pages, { snapshots: new Snapshots(kv, Date.now) });

    await pause();
    const quiet = instance();
    await quiet.refresh(SITE);
    await quiet.flush();
    await quiet.idle(); // the pass after the save's compaction, and the read ahead after it
    const before = keptHeadingsBytes(dbOf(quiet));
    assert.ok(before > 0, "headings read ahead");
    const expected = await answers(quiet);
    assert.equal(keptHeadingsBytes(dbOf(quiet)), before, "the searches read no heading anew");

    // Searched as it opens (the same snapshot, loaded): nothing is read ahead.
    const busy = instance();
    const first = await busy.search(SITE, { query: QUERIES[0] });
    await busy.idle();
    assert.ok(keptHeadingsBytes(dbOf(busy)) < before, "only what its first search read");
    assert.deepEqual(first, expected[0]);
    assert.deepEqual(await answers(busy), expected);
    quiet.discard();
    busy.discard();
  } finally {
    kv.close();
  }
});
