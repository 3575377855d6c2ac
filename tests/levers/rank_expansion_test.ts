import assert from "node:assert/strict";
import { compileSynonyms } from "../../lib/levers/synonyms.ts";
import { rank } from "../../lib/search/engine/mod.ts";
import { addDoc, createSiteDb, docAt, type SiteDb } from "../../lib/search/engine/mod.ts";

function siteDb(pages: [string, string, string][]): SiteDb {
  const db = createSiteDb();
  for (const [id, title, body] of pages) {
    addDoc(db, { id, title, description: "", headings: "", body });
  }
  return db;
}

const ids = (db: SiteDb, q: string, expand = compileSynonyms([])) =>
  rank(db, q, { expand }).ids.map((i) => docAt(db, i).id);

const PAGES: [string, string, string][] = [
  ["/ny-pizza", "Pizza in New York", "The best pizza slices of New York, folded."],
  ["/pizza", "Pizza at home", "Bake a pizza at home in a hot oven."],
  ["/new", "New arrivals", "Fresh arrivals this week."],
  ["/york", "York minster", "A cathedral in the north of England."],
];

Deno.test("rank expansion - a synonym's phrase finds only pages holding all its words, and counts as every word it stands for", () => {
  const db = siteDb(PAGES);
  const expand = compileSynonyms([{ id: "a", word: "nyc", means: ["new york"] }]);
  assert.deepEqual(ids(db, "nyc", expand), ["/ny-pizza"]);
  // "nyc pizza": the page with New York and pizza first, then pages with pizza alone.
  assert.deepEqual(ids(db, "nyc pizza", expand), ["/ny-pizza", "/pizza"]);
  // Without the synonym, nyc finds nothing and pizza alone ranks.
  assert.deepEqual(ids(db, "nyc"), []);
});

Deno.test("rank expansion - the word typed still finds its own pages beside the synonym's, and first when both match equally", () => {
  const db = siteDb([
    ["/tee", "Tee", "A plain tee."],
    ["/shirt", "Shirt", "A plain shirt."],
    ["/other", "Socks", "Warm socks."],
  ]);
  const expand = compileSynonyms([{ id: "a", words: ["tee", "shirt"] }]);
  assert.deepEqual(ids(db, "tee", expand), ["/tee", "/shirt"]);
  assert.deepEqual(ids(db, "shirt", expand), ["/shirt", "/tee"]);
});

Deno.test("rank expansion - a two-word query phrase found as its one-word synonym; corrections are not invented for it", () => {
  const db = siteDb([
    ["/nyc", "NYC guide", "Our nyc guide."],
    ["/paris", "Paris guide", "Our Paris guide."],
  ]);
  const expand = compileSynonyms([{ id: "a", words: ["big apple", "nyc"] }]);
  const r = rank(db, "big apple guide", { expand });
  assert.equal(docAt(db, r.ids[0]).id, "/nyc");
  assert.deepEqual(r.corrections, []);
});
