import assert from "node:assert/strict";
import { admin, createSite, OPERATOR, putPages, search, startApp } from "../helpers.ts";
import { html, serveSite } from "../fixtures/crawl_site.ts";

const noDns = (host: string) => Promise.reject(new Error(`no DNS in tests (${host})`));
const CRAWL = { allowLoopback: true, delayMs: 0, resolve: noDns };

/** Every key and value in the KV, one line each. */
async function everything(kv: Deno.Kv): Promise<string[]> {
  const lines: string[] = [];
  for await (const e of kv.list({ prefix: [] })) {
    const value = e.value instanceof Deno.KvU64 ? String(e.value.value) : e.value;
    lines.push(JSON.stringify(e.key) + " " + JSON.stringify(value));
  }
  return lines;
}

Deno.test("health - /healthz answers 200 while KV answers and 503 with the error envelope once it is closed", async () => {
  const t = await startApp();
  const ok = await t.call("/healthz");
  assert.equal(ok.status, 200);
  assert.equal((await ok.json()).status, "ok");
  const post = await t.call("/healthz", { method: "POST" });
  assert.equal(post.status, 405);
  await post.body?.cancel();
  t.close();
  const down = await t.call("/healthz");
  assert.equal(down.status, 503);
  assert.equal(down.headers.get("retry-after"), "5");
  const body = await down.json();
  assert.equal(body.error.code, "SERVICE_UNAVAILABLE");
});

Deno.test("operator - sites list by cursor, each site once, for the operator only", async () => {
  const t = await startApp();
  const ids = new Set<string>();
  for (let i = 0; i < 5; i++) ids.add((await createSite(t, "free", `Site ${i}`)).id);
  const seen: string[] = [];
  let cursor = "";
  for (let page = 0; page < 5; page++) {
    const res = await t.call(`/api/admin/sites?limit=2${cursor ? `&cursor=${cursor}` : ""}`, {
      headers: { Authorization: `Bearer ${OPERATOR}` },
    });
    const body = await res.json();
    assert.equal(res.status, 200);
    assert.ok(body.sites.length <= 2);
    seen.push(...body.sites.map((s: { id: string }) => s.id));
    if (!body.cursor) break;
    cursor = encodeURIComponent(body.cursor);
  }
  assert.deepEqual(seen.sort(), [...ids].sort());
  const bad = await t.call("/api/admin/sites?cursor=%25%25nope", admin(OPERATOR));
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).error.param, "cursor");
  const tooMany = await t.call("/api/admin/sites?limit=5000", admin(OPERATOR));
  assert.equal(tooMany.status, 400);
  await tooMany.body?.cancel();
  const site = await createSite(t, "free");
  const owner = await t.call("/api/admin/sites", admin(site.adminKey));
  assert.equal(owner.status, 403);
  await owner.body?.cancel();
  t.close();
});

Deno.test("operator - DELETE /api/admin/sites/:id leaves no key of the site in KV, even mid-crawl, and spares other sites", async () => {
  const fixture = serveSite(
    new Map([
      ["/", html("Start", `<a href="/a">a</a> <a href="/slow">slow</a>`)],
      ["/a", html("Kettle A", "<p>A kettle page.</p>")],
      ["/slow", { stall: "headers" }],
    ]),
  );
  const t = await startApp({ crawl: CRAWL });
  const doomed = await createSite(t, "business", "Doomed");
  const kept = await createSite(t, "business", "Kept");
  for (const site of [doomed, kept]) {
    await putPages(t, site, [
      { url: "/shipping", title: "Shipping", body: "We ship kettles within two days." },
    ]);
    assert.equal((await search(t, site.publicKey, "q=shipping")).status, 200);
    const doc = await t.call(`/api/admin/sites/${site.id}/documents?title=Manual`, {
      method: "POST",
      headers: { Authorization: `Bearer ${site.adminKey}`, "Content-Type": "text/markdown" },
      body: "# Manual\n\nShipping kettles takes two days by courier.",
    });
    assert.equal(doc.status, 201, await doc.text());
    const answer = await t.call("/api/summarize", {
      method: "POST",
      headers: { "X-API-Key": site.publicKey, "Content-Type": "application/json" },
      body: JSON.stringify({ query: "How long does shipping take?" }),
    });
    assert.equal(answer.status, 200, await answer.text());
  }
  const crawl = await t.call(
    `/api/admin/sites/${doomed.id}/crawl`,
    admin(doomed.adminKey, { url: `${fixture.origin}/` }),
  );
  assert.equal(crawl.status, 202);
  await crawl.body?.cancel();
  // Until the crawl has stored a page and hangs on /slow.
  for (let i = 0; i < 100 && !fixture.paths().includes("/slow"); i++) {
    await new Promise((r) => setTimeout(r, 20));
  }
  const before = await everything(t.kv);
  assert.ok(before.filter((l) => l.includes(doomed.id)).length > 10);

  const byOwner = await t.call(`/api/admin/sites/${doomed.id}`, {
    ...admin(doomed.adminKey),
    method: "DELETE",
  });
  assert.equal(byOwner.status, 403, "only the operator deletes sites");
  await byOwner.body?.cancel();
  const res = await t.call(`/api/admin/sites/${doomed.id}`, {
    ...admin(OPERATOR),
    method: "DELETE",
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  assert.equal(body.deleted, doomed.id);
  assert.ok(body.keysRemoved > 10);

  await new Promise((r) => setTimeout(r, 300)); // any last write of the stopped crawl lands
  const hashes = before.filter((l) => l.startsWith('["ak"') && l.includes(doomed.id));
  const left = (await everything(t.kv)).filter((l) =>
    l.includes(doomed.id) || l.includes(doomed.publicKey) ||
    hashes.some((h) => l.startsWith(h.split(" ")[0]))
  );
  assert.deepEqual(left, [], "nothing of the site is left in KV");

  const again = await t.call(`/api/admin/sites/${doomed.id}`, {
    ...admin(OPERATOR),
    method: "DELETE",
  });
  assert.equal(again.status, 404);
  await again.body?.cancel();
  assert.equal((await search(t, doomed.publicKey, "q=shipping")).status, 401);
  const other = await search(t, kept.publicKey, "q=shipping");
  assert.equal(other.status, 200);
  assert.equal(other.body.meta.found, 1, "the other site keeps its pages");
  t.close();
  await fixture.close();
});
