/**
 * Pages an upsert just stored reach this process's index without their bodies being read back
 * from KV (lib/sites/pages.ts WrittenBodies): taken only when the stored hash is the one
 * written, so another instance's later write is read from KV as before.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { PageStore, type WrittenBodies } from "../../lib/sites/pages.ts";
import { SearchIndexes } from "../../lib/search/indexes.ts";
import { admin, OPERATOR } from "../helpers.ts";

/** A KV whose reads of page bodies (`list` under "pagebody") are counted. */
function countingKv(kv: Deno.Kv) {
  const counts = { bodyLists: 0 };
  const proxy = new Proxy(kv, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (name === "list") {
        return (selector: Deno.KvListSelector, options?: Deno.KvListOptions) => {
          const first = "prefix" in selector ? selector.prefix[0] : selector.start?.[0];
          if (first === "pagebody") counts.bodyLists++;
          return target.list(selector, options);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { kv: proxy, counts };
}

Deno.test("written bodies - a page's body comes from what was written while its hash is the stored one", async () => {
  const base = await Deno.openKv(":memory:");
  const { kv, counts } = countingKv(base);
  const store = new PageStore(kv, Date.now);
  try {
    const written: WrittenBodies = new Map();
    await store.upsert("s", { url: "/a", title: "A", body: "alpha ".repeat(10) }, 10, written);
    assert.equal(written.get("/a")?.body, "alpha ".repeat(10));
    const got = await store.get("s", "/a", written);
    assert.equal(got?.body, "alpha ".repeat(10));
    assert.equal(counts.bodyLists, 0, "no chunk was read back");

    // Another writer (no map of ours) changes the page: its body is read from KV.
    await store.upsert("s", { url: "/a", title: "A", body: "beta ".repeat(10) }, 10);
    counts.bodyLists = 0;
    const after = await store.get("s", "/a", written);
    assert.equal(after?.body, "beta ".repeat(10));
    assert.equal(counts.bodyLists, 1);
  } finally {
    base.close();
  }
});

Deno.test("written bodies - a catch-up indexes the pages just written without reading their bodies", async () => {
  const base = await Deno.openKv(":memory:");
  const { kv, counts } = countingKv(base);
  const store = new PageStore(kv, Date.now);
  const ix = new SearchIndexes(store);
  try {
    await store.upsert("s", { url: "/first", title: "First", body: "kettles and teapots" }, 10);
    assert.deepEqual((await ix.search("s", { query: "kettles" })).hits.map((h) => h.url), [
      "/first",
    ]);
    const written: WrittenBodies = new Map();
    for (const topic of ["infusers", "strainers", "saucers"]) {
      await store.upsert(
        "s",
        { url: `/${topic}`, title: topic, body: `all ${topic}` },
        10,
        written,
      );
    }
    // One of them is written again elsewhere before the catch-up: that one is read from KV.
    await store.upsert("s", { url: "/saucers", title: "saucers", body: "all trays" }, 10);
    counts.bodyLists = 0;
    await ix.refresh("s", written);
    assert.equal(counts.bodyLists, 1, "only the page changed since was read back");
    for (const [query, url] of [["infusers", "/infusers"], ["strainers", "/strainers"]]) {
      assert.deepEqual((await ix.search("s", { query })).hits.map((h) => h.url), [url]);
    }
    assert.deepEqual((await ix.search("s", { query: "trays" })).hits.map((h) => h.url), [
      "/saucers",
    ]);
  } finally {
    base.close();
  }
});

Deno.test("written bodies - PUT pages: the uploading process's index takes them without reading them back", async () => {
  const base = await Deno.openKv(":memory:");
  const { kv, counts } = countingKv(base);
  const { app, services } = createApp({ kv, operatorToken: OPERATOR, log: () => {} });
  const call = (path: string, init?: RequestInit) =>
    Promise.resolve(app.fetch(new Request("http://127.0.0.1" + path, init)));
  try {
    const made = await (await call(
      "/api/admin/sites",
      admin(OPERATOR, { name: "Tea", plan: "pro" }),
    )).json();
    const put = (pages: unknown[]) =>
      call(`/api/admin/sites/${made.site.id}/pages`, {
        ...admin(made.adminKey, { pages }),
        method: "PUT",
      });
    assert.equal((await put([{ url: "/kettles", title: "Kettles", body: "kettles" }])).status, 200);
    const search = async (q: string) =>
      (await (await call(`/api/search?key=${made.publicKey}&q=${q}`)).json()).results
        .map((r: { url: string }) => r.url);
    assert.deepEqual(await search("kettles"), ["/kettles"]);

    counts.bodyLists = 0;
    const long = "A strainer keeps the leaves out of the cup. ".repeat(800); // several chunks
    const res = await put([
      { url: "/strainers", title: "Strainers", body: long },
      { url: "/teapots", title: "Teapots", body: "teapots pour" },
    ]);
    assert.equal(res.status, 200);
    assert.deepEqual((await res.json()).counts, {
      created: 2,
      updated: 0,
      unchanged: 0,
      failed: 0,
    });
    assert.equal(counts.bodyLists, 0, "no body was read back from KV");
    assert.deepEqual(await search("strainer"), ["/strainers"]);
    assert.deepEqual(await search("teapots"), ["/teapots"]);
    // What KV holds is what was indexed: a fresh build from KV finds the same.
    const fresh = new SearchIndexes(new PageStore(base, Date.now));
    assert.deepEqual(
      (await fresh.search(made.site.id, { query: "strainer" })).hits.map((h) => h.url),
      ["/strainers"],
    );
  } finally {
    await services.close();
    base.close();
  }
});
