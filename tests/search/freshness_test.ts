/** Another instance's writes: checked beside the search on a busy site, waited for after a quiet spell. */
import assert from "node:assert/strict";
import { PageStore } from "../../lib/sites/pages.ts";
import { SearchIndexes } from "../../lib/search/indexes.ts";
import { manualClock } from "../helpers.ts";

const page = (url: string, word: string) => ({
  url,
  title: `A ${word}`,
  body: `All about ${word}.`,
});
const urls = async (ix: SearchIndexes, q: string) =>
  (await ix.search("s", { query: q })).hits.map((h) => h.url);

/** Two instances on one KV file: one writes pages, the other searches them (staleMs 100). */
async function twoInstances() {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const [kvA, kvB] = await Promise.all([Deno.openKv(path), Deno.openKv(path)]);
  const clock = manualClock();
  const writer = new PageStore(kvA, clock);
  const reader = new SearchIndexes(new PageStore(kvB, clock), { clock, staleMs: 100 });
  const close = async () => {
    reader.discard();
    kvA.close();
    kvB.close();
    await Deno.remove(path);
  };
  return { writer, reader, clock, close };
}

Deno.test("freshness - a busy site answers at once while its check runs; after a quiet spell the check is waited for", async () => {
  const { writer, reader, clock, close } = await twoInstances();
  try {
    await writer.upsert("s", page("/a", "zeppelin"), Infinity);
    assert.deepEqual(await urls(reader, "zeppelin"), ["/a"]);

    // Another instance adds a page; 150 ms later (stale, but searched a moment ago) the answer
    // comes at once from the index as it was, and the check it started brings the page in.
    await writer.upsert("s", page("/b", "zeppelin"), Infinity);
    clock.advance(150);
    assert.deepEqual(await urls(reader, "zeppelin"), ["/a"]);
    let seen: string[] = [];
    for (let i = 0; i < 50 && seen.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 10));
      seen = await urls(reader, "zeppelin");
    }
    assert.deepEqual(seen.sort(), ["/a", "/b"]);

    // After a quiet spell (10 × staleMs and more) the first search waits for the check.
    await writer.upsert("s", page("/c", "zeppelin"), Infinity);
    clock.advance(2_000);
    assert.deepEqual((await urls(reader, "zeppelin")).sort(), ["/a", "/b", "/c"]);
  } finally {
    await close();
  }
});

Deno.test("freshness - an index checked within staleMs is read at once (no promise), and checked again once stale", async () => {
  const { writer, reader, clock, close } = await twoInstances();
  try {
    await writer.upsert("s", page("/a", "zeppelin"), Infinity);
    assert.ok(reader.reader("s") instanceof Promise, "not in memory: its version is read");
    assert.deepEqual(await urls(reader, "zeppelin"), ["/a"]); // opened
    await reader.idle();
    const ready = reader.reader("s");
    assert.ok(!(ready instanceof Promise), "in memory and checked lately: at once");
    assert.deepEqual((await ready.search({ query: "zeppelin" })).hits.map((h) => h.url), ["/a"]);

    // Another instance's page: within staleMs the index is read as it is; once the check is
    // stale the reader waits for it (after a quiet spell) and sees the page at its version.
    await writer.upsert("s", page("/b", "zeppelin"), Infinity);
    clock.advance(50);
    const before = reader.reader("s");
    assert.ok(!(before instanceof Promise));
    clock.advance(2_000);
    const stale = reader.reader("s");
    assert.ok(stale instanceof Promise, "stale: checked before it is read");
    const after = await stale;
    assert.ok(after.version > before.version);
    assert.deepEqual((await after.search({ query: "zeppelin" })).hits.map((h) => h.url).sort(), [
      "/a",
      "/b",
    ]);
  } finally {
    await close();
  }
});
