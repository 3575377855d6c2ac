import assert from "node:assert/strict";
import { addDoc, createSiteDb, docAt, rank, type SiteDb } from "../../lib/search/engine/mod.ts";
import { removeDoc, seal } from "../../lib/search/engine/store/site_db.ts";

interface Page {
  id: string;
  title: string;
  sections: { heading: string; text: string }[];
}

/** Filler prose of `n` words that holds no query word (a manual's other topics). */
const filler = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => `topic${(i * 7 + seed) % 97}`).join(" ") + ".";

function add(db: SiteDb, p: Page) {
  addDoc(db, {
    id: p.id,
    title: p.title,
    description: "",
    headings: p.sections.map((s) => s.heading).join("\n"),
    body: p.sections.map((s) => `${s.heading}\n${s.text}`).join("\n"),
    sections: p.sections.map((s, i) => ({ heading: s.heading, anchor: `s${i}` })),
  });
}

function siteDb(pages: Page[]): SiteDb {
  const db = createSiteDb();
  for (const p of pages) add(db, p);
  return db;
}

const urls = (db: SiteDb, q: string) =>
  rank(db, q, { limit: 10 }).ids.map((i) => docAt(db, i, 0).id);

/** A long manual chapter: twelve sections of 150 words; `words[i]` said often in section i. */
const longPage = (id: string, words: Record<number, string>, headings: string[] = []): Page => ({
  id,
  title: "The complete manual",
  sections: Array.from({ length: 12 }, (_, i) => ({
    heading: headings[i] ?? `Chapter part ${i + 1}`,
    text: `${filler(150, i)} ${words[i] ? `${words[i]} `.repeat(6) : ""}`,
  })),
});

/** A short page whose one section says all the query's words together, once each. */
const answer: Page = {
  id: "/rotation",
  title: "Housekeeping",
  sections: [
    { heading: "Overview", text: "Keeping a server tidy." },
    { heading: "Old records", text: "Rotate the log files weekly with the scheduler." },
  ],
};

Deno.test("rank passages - the page whose one section answers the query comes before the long page that uses each word often but in sections far apart", () => {
  const db = siteDb([
    longPage("/manual", { 1: "rotate", 4: "log", 7: "files", 10: "weekly" }),
    answer,
  ]);
  assert.deepEqual(urls(db, "rotate log files weekly").slice(0, 2), ["/rotation", "/manual"]);
});

Deno.test("rank passages - a long page that holds the query's words in one of its sections keeps its place before a short page", () => {
  // The same words, all in one section of the long page: it answers as well, and says more.
  const db = siteDb([longPage("/manual", { 4: "rotate log files weekly" }), answer]);
  assert.deepEqual(urls(db, "rotate log files weekly").slice(0, 2), ["/manual", "/rotation"]);
});

Deno.test("rank passages - a word the long page's title holds counts in every section", () => {
  // "manual" is in the title: the section that holds the other two words answers the query.
  const db = siteDb([
    longPage("/manual", { 2: "rotate", 3: "manual", 6: "rotate weekly" }),
    {
      id: "/short",
      title: "Notes",
      sections: [{ heading: "Notes", text: "Rotate weekly, as the manual says." }],
    },
  ]);
  assert.equal(urls(db, "manual rotate weekly")[0], "/manual");
});

Deno.test("rank passages - a reference page with a section headed by the query's rare name comes first although its other words are elsewhere", () => {
  const headings = Array.from({ length: 12 }, (_, i) => i === 5 ? "strictly_beside" : `Entry ${i}`);
  const db = siteDb([
    longPage("/reference", { 5: "strictly_beside lookup", 9: "type" }, headings),
    {
      id: "/lookups",
      title: "Spatial queries",
      sections: [{
        heading: "Table",
        text: "Each lookup type: strictly_beside, contains, within.",
      }],
    },
    // Other pages say "lookup" and "type": the name is the query's rare word.
    { id: "/guide", title: "Guide", sections: [{ heading: "Guide", text: "A lookup type." }] },
  ]);
  assert.equal(urls(db, "lookup type strictly_beside")[0], "/reference");
});

Deno.test("rank passages - a one-word query, even a joined name, is not judged by passages", () => {
  const db = siteDb([
    longPage("/settings", { 2: "cache", 8: "timeout" }),
    { id: "/howto", title: "Notes", sections: [{ heading: "Notes", text: "The cache-timeout." }] },
  ]);
  const before = urls(db, "cache-timeout");
  assert.deepEqual(new Set(before), new Set(["/settings", "/howto"]));
  // The settings page says both parts far more often: with no passage rule it leads.
  assert.equal(before[0], "/settings");
});

Deno.test("rank passages - pages keep their sections' words right after documents are removed and ids change", () => {
  const db = siteDb([
    longPage("/old", { 1: "rotate log files weekly" }),
    longPage("/manual", { 1: "rotate", 4: "log", 7: "files", 10: "weekly" }),
    answer,
  ]);
  assert.equal(urls(db, "rotate log files weekly")[0], "/old");
  // The first page goes: every page after it takes a new internal id on the seal.
  removeDoc(db, "/old");
  seal(db);
  assert.deepEqual(urls(db, "rotate log files weekly").slice(0, 2), ["/rotation", "/manual"]);
  // A page added later gets its own sections, not those kept for an old id.
  add(db, longPage("/new", { 3: "rotate log files weekly" }));
  seal(db);
  assert.equal(urls(db, "rotate log files weekly")[0], "/new");
});
