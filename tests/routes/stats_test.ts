import assert from "node:assert/strict";
import {
  admin,
  createSite,
  numberedPages,
  OPERATOR,
  putPages,
  search,
  startApp,
} from "../helpers.ts";

Deno.test("stats - the operator reads process memory, index loads, builds and evictions, and quota figures; no one else does", async () => {
  // A budget one site's index fills: searching two sites in turn evicts each for the other.
  const t = await startApp({ indexMemoryBytes: 1 });
  try {
    const a = await createSite(t, "pro", "A");
    const b = await createSite(t, "pro", "B");
    await putPages(t, a, numberedPages(5, "widget"));
    await putPages(t, b, numberedPages(5, "gadget"));
    for (const [site, word] of [[a, "widget"], [b, "gadget"], [a, "widget"]] as const) {
      const res = await search(t, site.publicKey, `q=${word}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.results.length, 5);
    }
    const res = await t.call("/api/admin/stats", admin(OPERATOR));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "no-store");
    const body = await res.json();
    assert.ok(body.memory.rss > 0 && body.memory.heapUsed > 0);
    assert.equal(body.indexes.budgetBytes, 1);
    const pages = body.indexes.pages;
    assert.equal(pages.inMemory, 1); // only the last one searched fits
    assert.ok(pages.estimatedBytes > 1);
    assert.ok(pages.loaded + pages.built >= 3, JSON.stringify(pages));
    assert.ok(pages.evicted >= 2, JSON.stringify(pages));
    assert.equal(body.indexes.documents.inMemory, 0);
    // Three searches admitted, each counted: the quota's figures say so.
    assert.equal(body.quota.admitted, 3, JSON.stringify(body.quota));
    assert.ok(body.quota.commits >= 1 && body.quota.waited <= 3, JSON.stringify(body.quota));

    const owner = await t.call("/api/admin/stats", admin(a.adminKey));
    assert.equal(owner.status, 403);
    assert.equal((await owner.json()).error.code, "OPERATOR_ONLY");
    const bad = await t.call("/api/admin/stats?gc=yes", admin(OPERATOR));
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).error.param, "gc");
    const post = await t.call("/api/admin/stats", { ...admin(OPERATOR), method: "POST" });
    assert.equal(post.status, 405);
    await post.body?.cancel();
  } finally {
    await t.services.indexes.flush();
    t.close();
  }
});
