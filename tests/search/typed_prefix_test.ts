/** A word being typed stands for every word it begins: the heading rule still finds its page. */
import assert from "node:assert/strict";
import { addDoc, createSiteDb, docAt, rank, type SiteDb } from "../../lib/search/engine/mod.ts";

/** Words that begin with "in" (a manual has hundreds), each a heading of some page. */
const IN_WORDS = Array.from({ length: 300 }, (_, i) => `in${"abcdefghij"[i % 10]}${i}word`);

function siteDb(): SiteDb {
  const db = createSiteDb();
  IN_WORDS.forEach((w, i) => {
    addDoc(db, {
      id: `/ref/${i}`,
      title: `Reference ${i}`,
      description: "",
      headings: `${w} options`,
      body: `${w} options\nThe ${w} setting in a table, in the server, in short.`,
      sections: [{ heading: `${w} options`, anchor: "o" }],
    });
  });
  addDoc(db, {
    id: "/sql/in",
    title: "Subquery expressions",
    description: "",
    headings: "EXISTS\nIN\nANY",
    body: "EXISTS\nTrue when the subquery returns a row.\nIN\nTrue when the value is in the " +
      "subquery's rows.\nANY\nTrue when any row compares true.",
    sections: ["EXISTS", "IN", "ANY"].map((h) => ({ heading: h, anchor: h.toLowerCase() })),
  });
  return db;
}

const urls = (db: SiteDb, q: string) =>
  rank(db, q, { limit: 10 }).ids.map((i) => docAt(db, i, 0).id);

Deno.test("typed prefix - a heading that is a word the query's word begins still names its page", () => {
  const db = siteDb();
  assert.equal(urls(db, IN_WORDS[7])[0], "/ref/7");
  assert.equal(urls(db, `${IN_WORDS[7]} options`)[0], "/ref/7");
});
