/**
 * What a search shows of a page, read once and kept for the next result showing it
 * (packed_text.ts `keptPrefix`): each search still marks its own query's words, a page
 * changed shows its new text, and pages read from a snapshot (many views of one buffer)
 * each show their own text.
 */
import assert from "node:assert/strict";
import { addDoc, createSiteDb, type SiteDb } from "../../lib/search/engine/mod.ts";
import { search } from "../../lib/search/engine/presentation/results.ts";
import { decodeSiteDb, encodeSiteDb } from "../../lib/search/engine/snapshot_codec.ts";

/** Long enough to be kept deflated (short text is kept as it is and never inflated). */
const filler = (topic: string) =>
  `This page explains ${topic} in detail with examples and notes for every case. `.repeat(40);

function site(pages: { id: string; title: string; body: string }[]): SiteDb {
  const db = createSiteDb();
  for (const p of pages) addDoc(db, { description: "", headings: "", ...p });
  return db;
}

/** The words a result's body snippet marks, lowercased. */
function marked(db: SiteDb, q: string, url: string): string[] {
  const hit = search(db, { query: q }).hits.find((h) => h.url === url);
  assert.ok(hit, `${url} is found for "${q}"`);
  const body = hit.highlights.find((h) => h.field === "body");
  assert.ok(body, `${url} has a body snippet for "${q}"`);
  return body.matches.map(([s, e]) => body.snippet.slice(s, e).toLowerCase());
}

Deno.test("shown text - a page shown for one query and then for another marks each query's own words", () => {
  const db = site([{
    id: "/guide",
    title: "Guide",
    body: "Brewing with a kettle. Grinding with a burr mill. " + filler("coffee"),
  }]);
  assert.deepEqual([...new Set(marked(db, "kettle", "/guide"))], ["kettle"]);
  assert.deepEqual([...new Set(marked(db, "burr", "/guide"))], ["burr"]);
  assert.deepEqual([...new Set(marked(db, "kettle", "/guide"))], ["kettle"]);
});

Deno.test("shown text - a page whose text changed shows the new text on the next search", () => {
  const db = site([{
    id: "/news",
    title: "News",
    body: "The old grinder arrived. " + filler("news"),
  }]);
  const before = search(db, { query: "grinder" }).hits[0];
  assert.match(before.highlights.find((h) => h.field === "body")!.snippet, /old grinder/);
  addDoc(db, {
    id: "/news",
    title: "News",
    description: "",
    headings: "",
    body: "The new grinder arrived. " + filler("news"),
  });
  const after = search(db, { query: "grinder" }).hits[0];
  const snippet = after.highlights.find((h) => h.field === "body")!.snippet;
  assert.match(snippet, /new grinder/);
  assert.doesNotMatch(snippet, /old grinder/);
});

Deno.test("shown text - pages read back from a snapshot each show their own text, again and again", () => {
  const topics = Array.from({ length: 150 }, (_, i) => `topic${i}`);
  const built = site(topics.map((t) => ({
    id: `/${t}`,
    title: t,
    body: `${t} starts here, kettleword ${t}. ` + filler(t),
  })));
  // Decoded, every page's text is a view of the snapshot's one buffer.
  const db = decodeSiteDb(encodeSiteDb(built));
  // More pages than are kept, twice over: each result's description is its own page's start.
  for (let round = 0; round < 2; round++) {
    for (const t of topics) {
      const hit = search(db, { query: t }).hits.find((h) => h.url === `/${t}`);
      assert.ok(hit, `/${t} is found`);
      assert.ok(hit.description.startsWith(`${t} starts here`), `/${t}: ${hit.description}`);
    }
  }
});
