/**
 * What a result shows of a page read only in part (packed_text.ts `keptPrefix`): the start of
 * a deflated page is inflated only as far as a result needs, yet every result reads as if
 * the whole text had been read: its own characters, whatever they are and wherever a block
 * or a partial read cuts them, and the query's words marked where they are.
 */
import assert from "node:assert/strict";
import { addDoc, createSiteDb, type SiteDb } from "../../lib/search/engine/mod.ts";
import { search } from "../../lib/search/engine/presentation/results.ts";
import { decodeSiteDb, encodeSiteDb } from "../../lib/search/engine/snapshot_codec.ts";
import { keptPrefix, packText, sourceOf } from "../../lib/search/engine/store/packed_text.ts";

/** Text of every kind of character: ASCII, accented, two-unit emoji, CJK, line breaks. */
function mixed(n: number, seed: number): string {
  const parts = [
    "plain words ",
    "café crème ",
    "naïve façade ",
    "😀 ",
    "東京都 ",
    "line\n",
    "Ωμέγα ",
  ];
  let s = "";
  for (let i = 0; s.length < n; i++) s += parts[(i * 7 + seed) % parts.length];
  return s;
}

Deno.test("present text - a page's start read in part is its own first characters, however far it is read and whatever they are", () => {
  for (const [length, seed] of [[600, 1], [9_000, 2], [30_000, 3], [70_000, 4]]) {
    const text = mixed(length, seed);
    const packed = packText(text);
    // Asked for short then longer starts, as a result asks, and anew from nothing each time.
    const prefix = keptPrefix(sourceOf(packed.slice()), 8_000);
    assert.equal(prefix.length, Math.min(8_000, text.length));
    for (const n of [1, 100, 2_047, 2_400, 2_401, 4_000, 8_000, 8_001]) {
      const got = prefix.upTo(n);
      assert.ok(got.length >= Math.min(n, prefix.length), `${length}: at least ${n}`);
      assert.ok(got.length <= prefix.length, `${length}: at most its length`);
      assert.equal(got, text.slice(0, got.length), `${length}: the text's own start (${n})`);
      const fresh = keptPrefix(sourceOf(packed.slice()), 8_000).upTo(n);
      assert.equal(fresh, text.slice(0, fresh.length), `${length}: read anew (${n})`);
    }
  }
});

/** A site of the given pages (no description: a result's description is its text's start). */
function site(pages: { id: string; title: string; body: string }[]): SiteDb {
  const db = createSiteDb();
  for (const p of pages) addDoc(db, { description: "", headings: "", ...p });
  return db;
}

/** The body snippet shown for a page, and the words it marks, for a query. */
function shown(db: SiteDb, q: string, url: string) {
  const hit = search(db, { query: q }).hits.find((h) => h.url === url);
  assert.ok(hit, `${url} is found for "${q}"`);
  const body = hit.highlights.find((h) => h.field === "body");
  return { hit, body, marked: body?.matches.map(([s, e]) => body.snippet.slice(s, e)) ?? [] };
}

Deno.test("present text - a word far into a long page of accented and four-byte characters is shown and marked as written", () => {
  // The word first appears after several thousand characters (past the first read and chunk).
  const body = mixed(5_000, 5) + " the Überraschung arrives here. " + mixed(20_000, 6);
  const db = site([{ id: "/far", title: "Far", body }]);
  const { body: snippet, marked } = shown(db, "überraschung", "/far");
  assert.ok(snippet, "a body snippet is shown");
  assert.deepEqual([...new Set(marked)], ["Überraschung"]);
  assert.match(snippet.snippet, /the Überraschung arrives here/);
});

Deno.test("present text - a word in the first lines and a word read later on the same page are each shown for their own query", () => {
  const body = "Kettle care starts here.\n" + mixed(6_000, 1) +
    "\nThe descaler works in minutes. " +
    mixed(6_000, 2);
  const db = site([{ id: "/kettle", title: "Kettle", body }]);
  // The first search reads only the start; the second must read further; the first again.
  assert.deepEqual([...new Set(shown(db, "care", "/kettle").marked)], ["care"]);
  const later = shown(db, "descaler", "/kettle");
  assert.deepEqual([...new Set(later.marked)], ["descaler"]);
  assert.match(later.body!.snippet, /The descaler works in minutes/);
  assert.deepEqual([...new Set(shown(db, "care", "/kettle").marked)], ["care"]);
  // The description is the page's start either way.
  assert.ok(later.hit.description.startsWith("Kettle care starts here."));
});

Deno.test("present text - a page read back from a snapshot shows what the page built in place shows", () => {
  const pages = Array.from({ length: 40 }, (_, i) => ({
    id: `/p${i}`,
    title: `Page ${i} about brewing`,
    body: `Brewing note ${i}.\n` + mixed(3_000 + 500 * i, i) + `\nGrinder ${i} settings. ` +
      mixed(4_000, i + 1),
  }));
  const built = site(pages);
  const loaded = decodeSiteDb(encodeSiteDb(built));
  for (const q of ["brewing", "grinder settings", "café", "東京都", "ωμέγα", "note"]) {
    const want = search(built, { query: q });
    assert.ok(want.hits.length > 0, `"${q}" finds pages`);
    assert.deepEqual(search(loaded, { query: q }), want, `"${q}"`);
  }
});
