import assert from "node:assert/strict";
import { admin, createSite, putPages, search, startApp } from "../helpers.ts";

const urls = (body: { results: { url: string }[] }) => body.results.map((r) => r.url.split("#")[0]);

Deno.test("search cache - a repeated query is answered from the cache, with fresh rate-limit headers", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  await putPages(t, site, [{ url: "/kettle", title: "Kettle", body: "A quiet kettle for tea." }]);
  const first = await search(t, site.publicKey, "q=kettle");
  const size = t.services.resultCache.size;
  assert.equal(size, 1);
  const again = await search(t, site.publicKey, "q=kettle");
  assert.deepEqual(again.body, first.body);
  assert.equal(t.services.resultCache.size, size, "served from the entry, not stored again");
  assert.equal(again.headers.get("content-type"), "application/json");
  // Quota still counts every search: the second answer shows one more used.
  const left = (h: Headers) => Number(/r=(\d+)/.exec(h.get("RateLimit") ?? "")![1]);
  assert.equal(left(again.headers), left(first.headers) - 1);
  t.close();
});

Deno.test("search cache - never answers from before an upsert or a delete on the same instance", async () => {
  const t = await startApp();
  const site = await createSite(t, "pro");
  await putPages(t, site, [{ url: "/a", title: "Teapot A", body: "A teapot of glass." }]);
  assert.deepEqual(urls((await search(t, site.publicKey, "q=teapot")).body), ["/a"]);
  await putPages(t, site, [{ url: "/b", title: "Teapot B", body: "A teapot of iron." }]);
  assert.deepEqual(urls((await search(t, site.publicKey, "q=teapot")).body).sort(), ["/a", "/b"]);
  const del = await t.call(`/api/admin/sites/${site.id}/pages?url=/a`, {
    ...admin(site.adminKey),
    method: "DELETE",
  });
  assert.equal(del.status, 200);
  await del.body?.cancel();
  assert.deepEqual(urls((await search(t, site.publicKey, "q=teapot")).body), ["/b"]);
  t.close();
});

Deno.test("search cache - another instance's upsert shows once its index catches up, never the cached answer after", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/kv.sqlite`;
  const a = await startApp({ kvPath, indexStaleMs: 50 });
  const b = await startApp({ kvPath, indexStaleMs: 50 });
  const site = await createSite(a, "pro");
  await putPages(a, site, [{ url: "/a", title: "Teapot A", body: "A teapot of glass." }]);
  await new Promise((r) => setTimeout(r, 100));
  assert.deepEqual(urls((await search(b, site.publicKey, "q=teapot")).body), ["/a"]);
  assert.deepEqual(urls((await search(b, site.publicKey, "q=teapot")).body), ["/a"]); // cached
  await putPages(a, site, [{ url: "/b", title: "Teapot B", body: "A teapot of iron." }]);
  await new Promise((r) => setTimeout(r, 100));
  let seen: string[] = [];
  for (let i = 0; i < 20 && seen.length < 2; i++) {
    seen = urls((await search(b, site.publicKey, "q=teapot")).body);
    if (seen.length < 2) await new Promise((r) => setTimeout(r, 60));
  }
  assert.deepEqual(seen.sort(), ["/a", "/b"]);
  // Once B has the new version, the cached answer for the old one never comes back.
  for (let i = 0; i < 5; i++) {
    assert.deepEqual(urls((await search(b, site.publicKey, "q=teapot")).body).sort(), ["/a", "/b"]);
  }
  a.close();
  b.close();
  await Deno.remove(dir, { recursive: true });
});
