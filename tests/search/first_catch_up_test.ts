/**
 * A new site's first pages: its empty index is built once, from the pages' shared title part
 * and language read first, not replayed page by page and then built again when they show.
 */
import assert from "node:assert/strict";
import { type Page, PageStore } from "../../lib/sites/pages.ts";
import { SearchIndexes } from "../../lib/search/indexes.ts";

/** A PageStore that counts the pages read one by one (a replay) and in full (a build). */
class CountingStore extends PageStore {
  byUrl = 0;
  whole = 0;
  override get(site: string, url: string): Promise<Page | null> {
    this.byUrl++;
    return super.get(site, url);
  }
  override async *all(site: string): AsyncGenerator<Page> {
    for await (const p of super.all(site)) {
      this.whole++;
      yield p;
    }
  }
}

const TOPICS = ["kettles", "teapots", "infusers", "strainers", "saucers", "trays", "spoons"];

Deno.test("first catch-up - an empty index takes a new site's pages in one build, the shared title part already known", async () => {
  const kv = await Deno.openKv(":memory:");
  const store = new CountingStore(kv, Date.now);
  const ix = new SearchIndexes(store);
  try {
    // The site is searched before it has pages: an empty index is open.
    assert.deepEqual((await ix.search("s", { query: "kettles" })).hits, []);
    for (const [i, topic] of TOPICS.entries()) {
      const page = {
        url: `/${topic}`,
        title: `All about ${topic} | Acme Tea Docs`,
        body: `${topic} ${i}.`,
      };
      await store.upsert("s", page, Infinity);
    }
    store.byUrl = store.whole = 0;
    await ix.refresh("s");
    assert.equal(store.byUrl, 0, "no page was read one by one");
    assert.equal(store.whole, TOPICS.length, "each page was read once");
    const { hits } = await ix.search("s", { query: "teapots" });
    assert.deepEqual(hits.map((h) => h.url), ["/teapots"]);
    // Indexed with the site's name taken off its title, as a build from the start does.
    assert.equal(hits[0].title, "All about teapots");

    // Later pages are replayed one by one, as before.
    store.byUrl = store.whole = 0;
    await store.upsert("s", {
      url: "/cups",
      title: "All about cups | Acme Tea Docs",
      body: "Cups.",
    }, Infinity);
    await ix.refresh("s");
    assert.equal(store.whole, 0, "a non-empty index is not built again for one page");
    assert.equal(store.byUrl, 1);
    assert.deepEqual((await ix.search("s", { query: "cups" })).hits.map((h) => h.url), ["/cups"]);
  } finally {
    ix.discard();
    kv.close();
  }
});
