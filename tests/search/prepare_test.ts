/**
 * The work searches need read off their path (indexes.ts prepare: long pages' passages,
 * names the pages state): once it has run, results are the same whatever searches came
 * before, and across a rebuild, a reload or a catch-up of the index.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { addDoc, createSiteDb, docAt, rank, type SiteDb } from "../../lib/search/engine/mod.ts";
import { prepareIndex } from "../../lib/search/engine/query/rank.ts";
import type { PageInput } from "../../lib/sites/pages.ts";

/** Filler prose of `n` words that holds no query word (a manual's other topics). */
const filler = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => `topic${(i * 7 + seed) % 97}`).join(" ") + ".";

/** A long chapter (twelve sections of 150 words) that says each query word in its own section. */
const chapter = (url: string, n: number): PageInput => {
  const words: Record<number, string> = { 1: "rotate", 4: "log", 7: "files", 10: "weekly" };
  const sections = Array.from({ length: 12 }, (_, i) => ({
    heading: `Chapter ${n} part ${i + 1}`,
    text: `${filler(150, i + n)} ${words[i] ? `${words[i]} `.repeat(6) : ""}`,
  }));
  return {
    url,
    title: `The complete manual, volume ${n}`,
    body: sections.map((s) => `${s.heading}\n${s.text}`).join("\n"),
    sections: sections.map((s, i) => ({ heading: s.heading, anchor: `s${i}` })),
  };
};

/** A short page whose one section says all the query's words together, once each. */
const answer: PageInput = {
  url: "/rotation",
  title: "Housekeeping",
  body:
    "Overview\nKeeping a server tidy.\nOld records\nRotate the log files weekly with the scheduler.",
  sections: [{ heading: "Overview", anchor: "o" }, { heading: "Old records", anchor: "r" }],
};

/** Three long chapters and the short answer, under URLs of their own (`site`). */
const pages = (site: string) => [
  ...[1, 2, 3].map((n) => chapter(`/${site}/manual-${n}`, n)),
  { ...answer, url: `/${site}/rotation` },
];

const QUERY = "rotate log files weekly";

function siteDb(site: string): SiteDb {
  const db = createSiteDb();
  for (const p of pages(site)) {
    addDoc(db, {
      id: p.url,
      title: p.title,
      description: "",
      headings: p.sections!.map((s) => s.heading).join("\n"),
      body: p.body,
      sections: p.sections,
    });
  }
  return db;
}

const urls = (db: SiteDb) => rank(db, QUERY, { limit: 10 }).ids.map((i) => docAt(db, i, 0).id);
const run = (db: SiteDb) => {
  for (const _ of prepareIndex(db));
};

Deno.test("prepare - once the pass has run, every long page is judged by its best section, whatever searches ran before it", () => {
  // Two copies of one site: one searched many times before its pass, one not at all.
  const searchedFirst = siteDb("a"), fresh = siteDb("b");
  for (let i = 0; i < 20; i++) urls(searchedFirst);
  run(searchedFirst);
  run(fresh);
  const a = urls(searchedFirst).map((u) => u.slice(2)), b = urls(fresh).map((u) => u.slice(2));
  assert.deepEqual(a, b);
  // The page that answers in one section comes before every chapter that spreads the words.
  assert.equal(a[0], "/rotation");
  assert.equal(a.length, 4);
});

/** The pass after a build run `n` steps on `db` (all: to its end); the steps it had. */
function steps(db: SiteDb, n = Infinity): number {
  const pass = prepareIndex(db);
  let k = 0;
  while (k < n && !pass.next().done) k++;
  return k;
}

Deno.test("prepare - a search at any step of the pass after a build ranks the long pages exactly as once the pass is done", () => {
  const all = steps(siteDb("d"));
  assert.ok(all >= 3, "the pass reads each long page in its own step");
  const done = siteDb("e");
  steps(done);
  const expected = urls(done).map((u) => u.slice(2));
  assert.equal(expected[0], "/rotation");
  for (let n = 0; n < all; n++) {
    const db = siteDb(`f${n}`); // URLs of its own: no page's passages were read before
    steps(db, n);
    assert.deepEqual(urls(db).map((u) => u.slice(n < 10 ? 3 : 4)), expected, `after ${n} steps`);
  }
});

/** A site that defines an abbreviation on one page and spells it out on another. */
function namingSite(site: string): SiteDb {
  const db = createSiteDb();
  const docs = [
    ["cdn", "Caching", "Files are served through a Content Delivery Network (CDN) near you."],
    ["speed", "Speed", "A content delivery network keeps copies of pages close to visitors."],
    ["other", "Billing", "Invoices are sent on the first day of the month."],
  ];
  for (const [url, title, body] of docs) {
    addDoc(db, { id: `/${site}/${url}`, title, description: "", headings: "", body });
  }
  return db;
}

Deno.test("prepare - the names a site's pages state count in a search before the pass has mined them, as after", () => {
  const ids = (db: SiteDb) =>
    rank(db, "cdn", { limit: 10 }).ids.map((i) => docAt(db, i, 0).id.slice(3));
  const before = namingSite("g1"), after = namingSite("g2");
  steps(after);
  assert.deepEqual(ids(after), ["/cdn", "/speed"]);
  assert.deepEqual(ids(before), ids(after));
});

Deno.test("prepare - a site's results are the same right after its pages are indexed, after the index is rebuilt, and after an unrelated page is added", async () => {
  const kv = await Deno.openKv(":memory:");
  const { services: s } = createApp({ kv, operatorToken: "op_prepare_test", log: () => {} });
  try {
    const { site } = await s.sites.create({ name: "Manual", plan: "enterprise" });
    for (const p of pages("c")) await s.pages.upsert(site.id, p, Infinity);
    const shown = async () =>
      (await s.indexes.search(site.id, { query: QUERY })).hits.map((h) => h.url.split("#")[0]);
    const first = await shown();
    assert.equal(first[0], "/c/rotation");
    await s.indexes.idle();
    assert.deepEqual(await shown(), first);
    // Rebuilt from KV (a restart, an eviction): the same order, at once and after its pass.
    s.indexes.drop(site.id);
    assert.deepEqual(await shown(), first);
    await s.indexes.idle();
    assert.deepEqual(await shown(), first);
    // A page on another topic caught up: the others keep their order.
    await s.pages.upsert(
      site.id,
      { url: "/c/pricing", title: "Pricing", body: "Plans." },
      Infinity,
    );
    await s.indexes.refresh(site.id);
    await s.indexes.idle();
    assert.deepEqual(await shown(), first);
  } finally {
    s.indexes.discard();
    s.analytics.discard();
    kv.close();
  }
});
