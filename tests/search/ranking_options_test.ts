/**
 * The engine as a library: one options object per search, and ranking's knobs set for one
 * search without touching the next (MiniSearch's `searchOptions`, per call).
 */
import assert from "node:assert/strict";
import {
  addDoc,
  createSiteDb,
  DEFAULT_RANKING,
  rankingWith,
  search,
  type SiteDb,
} from "../../lib/search/engine/mod.ts";

/** Two pages: one names the word in its title, the other says it often in its text. */
function site(): SiteDb {
  const db = createSiteDb();
  const page = (id: string, title: string, body: string) =>
    addDoc(db, { id, title, description: "", headings: "", body, sections: [] });
  page("/title", "Kettle", "A page about water and tea, and how it is made at home.");
  page(
    "/body",
    "Brewing at home",
    "The kettle heats water. Fill the kettle, switch the kettle on, wait for the kettle.",
  );
  return db;
}

const urls = (r: { hits: { url: string }[] }) => r.hits.map((h) => h.url);

Deno.test("ranking options - a search's own field weights change its order, and only its order", () => {
  const db = site();
  const before = search(db, { query: "kettle" });
  assert.deepEqual(urls(before), ["/title", "/body"], "by default a title match comes first");
  // The title worth almost nothing, and a whole title that is the query no more a name: the
  // page that uses the word four times wins.
  const bodyFirst = rankingWith({ fieldWeight: { title: 0.01 }, named: { words: 0 } });
  assert.equal(bodyFirst.fieldWeight.body, DEFAULT_RANKING.fieldWeight.body, "others kept");
  assert.equal(bodyFirst.named.pool, DEFAULT_RANKING.named.pool, "others of a group kept");
  const titleLight = rankingWith({ fieldWeight: { title: 0.01 } });
  assert.deepEqual(urls(search(db, { query: "kettle", ranking: titleLight })), ["/title", "/body"]);
  assert.deepEqual(urls(search(db, { query: "kettle", ranking: bodyFirst })), ["/body", "/title"]);
  // The next search without options ranks as before (no score kept under the other knobs).
  assert.deepEqual(search(db, { query: "kettle" }), before);
});

Deno.test("ranking options - defaults, paging and per page as one options object", () => {
  const db = site();
  assert.equal(rankingWith(), DEFAULT_RANKING, "no overrides: the defaults themselves");
  assert.equal(rankingWith({}).k1, DEFAULT_RANKING.k1);
  assert.throws(
    () => {
      (DEFAULT_RANKING as { k1: number }).k1 = 9;
    },
    TypeError,
    "the defaults are frozen",
  );
  const first = search(db, { query: "kettle", perPage: 1 });
  const second = search(db, { query: "kettle", perPage: 1, page: 2 });
  assert.equal(first.found, 2);
  assert.deepEqual([...urls(first), ...urls(second)], ["/title", "/body"]);
  // A prefix found only from two letters on (minPrefix), unless this search says one.
  assert.equal(search(db, { query: "k" }).found, 0);
  assert.equal(search(db, { query: "k", ranking: rankingWith({ minPrefix: 1 }) }).found, 2);
});
