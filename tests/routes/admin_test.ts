import assert from "node:assert/strict";
import { admin, createSite, OPERATOR, putPages, search, startApp } from "../helpers.ts";

Deno.test("admin - the operator creates a site; its admin key is shown once and stored only as a hash", async () => {
  const t = await startApp();
  const res = await t.call(
    "/api/admin/sites",
    admin(OPERATOR, { name: "Shop", plan: "pro", domain: "shop.example" }),
  );
  assert.equal(res.status, 201);
  const body = await res.json();
  assert.match(body.publicKey, /^pk_[0-9A-Za-z]{24}$/);
  assert.match(body.adminKey, /^sk_[0-9A-Za-z]{32}$/);
  assert.equal(body.site.plan, "pro");
  assert.equal(body.site.adminKeyHash, undefined);
  const got = await (await t.call(`/api/admin/sites/${body.site.id}`, admin(body.adminKey))).json();
  assert.equal(got.site.name, "Shop");
  assert.ok(!JSON.stringify(got).includes(body.adminKey));
  // Nothing in KV holds the admin key in plain text.
  for await (const e of t.kv.list({ prefix: [] })) {
    assert.ok(
      !JSON.stringify(e.value).includes(body.adminKey),
      `KV ${String(e.key)} leaks the admin key`,
    );
  }
  t.close();
});

Deno.test("admin - only the operator creates sites, changes plans and limits", async () => {
  const t = await startApp();
  const site = await createSite(t, "free");
  const create = await t.call(
    "/api/admin/sites",
    admin(site.adminKey, { name: "X", plan: "free" }),
  );
  assert.equal(create.status, 403);
  assert.equal((await create.json()).error.code, "OPERATOR_ONLY");
  for (const patch of [{ plan: "enterprise" }, { limits: { searchesPerMinute: 1000 } }]) {
    const r = await t.call(`/api/admin/sites/${site.id}`, {
      ...admin(site.adminKey, patch),
      method: "PATCH",
    });
    assert.equal(r.status, 403);
    assert.equal((await r.json()).error.param, Object.keys(patch)[0]);
  }
  const ok = await t.call(`/api/admin/sites/${site.id}`, {
    ...admin(site.adminKey, {
      aiSummaries: false,
      allowedOrigins: ["https://a.example"],
      resultsPage: "/find",
    }),
    method: "PATCH",
  });
  const { site: changed } = await ok.json();
  assert.deepEqual(
    [changed.settings.aiSummaries, changed.settings.allowedOrigins, changed.settings.resultsPage],
    [false, ["https://a.example"], "/find"],
  );
  const op = await t.call(`/api/admin/sites/${site.id}`, {
    ...admin(OPERATOR, { plan: "business", limits: { maxPerPage: 7 } }),
    method: "PATCH",
  });
  assert.equal((await op.json()).site.plan, "business");
  assert.equal((await search(t, site.publicKey, "q=x&per_page=50")).body.meta.per_page, 7);
  t.close();
});

Deno.test("admin - another site's admin key is answered 404 and a public key never authorises", async () => {
  const t = await startApp();
  const a = await createSite(t, "free");
  const b = await createSite(t, "free");
  for (
    const path of [
      `/api/admin/sites/${b.id}`,
      `/api/admin/sites/${b.id}/usage`,
      `/api/admin/sites/${b.id}/pages`,
    ]
  ) {
    const r = await t.call(path, admin(a.adminKey));
    assert.equal(r.status, 404, path);
    assert.equal((await r.json()).error.code, "NOT_FOUND");
  }
  const pub = await t.call(`/api/admin/sites/${a.id}`, admin(a.publicKey));
  assert.equal(pub.status, 401);
  assert.equal((await pub.json()).error.code, "INVALID_API_KEY");
  const none = await t.call(`/api/admin/sites/${a.id}`);
  assert.equal((await none.json()).error.code, "MISSING_API_KEY");
  t.close();
});

Deno.test("admin - a rotated admin key stops working at once", async () => {
  const t = await startApp();
  const site = await createSite(t, "free");
  const r = await t.call(
    `/api/admin/sites/${site.id}/keys/rotate`,
    admin(site.adminKey, { key: "admin" }),
  );
  const { adminKey } = await r.json();
  assert.equal((await t.call(`/api/admin/sites/${site.id}`, admin(site.adminKey))).status, 401);
  assert.equal((await t.call(`/api/admin/sites/${site.id}`, admin(adminKey))).status, 200);
  t.close();
});

Deno.test("admin - pages are upserted with per-item results, unchanged ones left alone", async () => {
  const t = await startApp();
  const site = await createSite(t, "free");
  const put = (pages: unknown[]) =>
    t.call(`/api/admin/sites/${site.id}/pages`, {
      ...admin(site.adminKey, { pages }),
      method: "PUT",
    });
  const first = await (await put([
    { url: "/a", title: "A", body: "alpha" },
    { url: "no-slash", title: "B", body: "beta" },
    { url: "/c", title: "", body: "gamma" },
  ])).json();
  assert.deepEqual(first.counts, { created: 1, updated: 0, unchanged: 0, failed: 2 });
  assert.equal(first.results[1].error.code, "INVALID_PARAMETER");
  assert.equal(first.results[1].error.param, "pages.1.url");
  assert.equal(first.results[2].error.param, "pages.2.title");
  const again = await (await put([{ url: "/a", title: "A", body: "alpha" }, {
    url: "/b",
    title: "B",
    body: "beta",
  }]))
    .json();
  assert.deepEqual(again.counts, { created: 1, updated: 0, unchanged: 1, failed: 0 });
  const changed = await (await put([{ url: "/a", title: "A2", body: "alpha" }])).json();
  assert.deepEqual(changed.counts, { created: 0, updated: 1, unchanged: 0, failed: 0 });
  assert.equal((await search(t, site.publicKey, "q=alpha")).body.results[0].title, "A2");
  t.close();
});

Deno.test("admin - a body larger than a KV value is stored whole and searchable to its last word", async () => {
  const t = await startApp();
  const site = await createSite(t, "free");
  const body = "Grüße ☕ 🎉 ".repeat(30_000) + " zanzibar"; // ~330k UTF-16 units, multi-byte everywhere
  await putPages(t, site, [{ url: "/big", title: "Big", body }]);
  const page = await t.services.pages.get(site.id, "/big");
  assert.equal(page?.body, body);
  assert.ok(page!.chunks > 5);
  const r = await search(t, site.publicKey, "q=zanzibar");
  assert.equal(r.body.results[0].url, "/big");
  // Replacing it leaves no chunk of the old version behind.
  await putPages(t, site, [{ url: "/big", title: "Big", body: "small now" }]);
  let chunks = 0;
  for await (const _ of t.kv.list({ prefix: ["pagebody", site.id, "/big"] })) chunks++;
  assert.equal(chunks, 1);
  t.close();
});

Deno.test("admin - pages list by cursor and delete one by url", async () => {
  const t = await startApp();
  const site = await createSite(t, "free");
  await putPages(
    t,
    site,
    Array.from({ length: 25 }, (_, i) => ({ url: `/p${i}`, title: `P${i}`, body: "x" })),
  );
  const seen: string[] = [];
  let cursor: string | null = "";
  while (cursor !== null) {
    const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
    const r =
      await (await t.call(`/api/admin/sites/${site.id}/pages?limit=10${q}`, admin(site.adminKey)))
        .json();
    seen.push(...r.pages.map((p: { url: string }) => p.url));
    cursor = r.cursor;
  }
  assert.equal(new Set(seen).size, 25);
  const del = await t.call(`/api/admin/sites/${site.id}/pages?url=/p3`, {
    ...admin(site.adminKey),
    method: "DELETE",
  });
  assert.equal(del.status, 200);
  await del.body?.cancel();
  const again = await t.call(`/api/admin/sites/${site.id}/pages?url=/p3`, {
    ...admin(site.adminKey),
    method: "DELETE",
  });
  assert.equal(again.status, 404);
  await again.body?.cancel();
  const bad = await t.call(
    `/api/admin/sites/${site.id}/pages?limit=10&cursor=%%%`,
    admin(site.adminKey),
  );
  assert.equal(bad.status, 400);
  await bad.body?.cancel();
  const usage = await (await t.call(`/api/admin/sites/${site.id}/usage`, admin(site.adminKey)))
    .json();
  assert.equal(usage.pages.count, 24);
  t.close();
});

Deno.test("admin - bodies are checked: type, size, JSON, shape", async () => {
  const t = await startApp();
  const site = await createSite(t, "free");
  const url = `/api/admin/sites/${site.id}`;
  const auth = { Authorization: `Bearer ${site.adminKey}` };
  const cases: [RequestInit, number, string][] = [
    [{ method: "PATCH", headers: auth, body: "{}" }, 415, "UNSUPPORTED_MEDIA_TYPE"],
    [
      { method: "PATCH", headers: { ...auth, "Content-Type": "application/json" }, body: "{nope" },
      400,
      "INVALID_JSON",
    ],
    [
      {
        method: "PATCH",
        headers: { ...auth, "Content-Type": "application/json" },
        body: "x".repeat(70_000),
      },
      413,
      "PAYLOAD_TOO_LARGE",
    ],
    [
      {
        method: "PATCH",
        headers: { ...auth, "Content-Type": "application/json" },
        body: '{"unknown":1}',
      },
      400,
      "INVALID_PARAMETER",
    ],
    [
      {
        method: "PATCH",
        headers: { ...auth, "Content-Type": "application/json" },
        body: '{"allowedOrigins":["https://a.example/path"]}',
      },
      400,
      "INVALID_PARAMETER",
    ],
    [
      {
        method: "PATCH",
        headers: { ...auth, "Content-Type": "application/json" },
        body: '{"aiSummaries":"yes"}',
      },
      400,
      "INVALID_PARAMETER",
    ],
    [
      { method: "PATCH", headers: { ...auth, "Content-Type": "application/json" }, body: "[]" },
      400,
      "INVALID_PARAMETER",
    ],
    [
      { method: "PATCH", headers: { ...auth, "Content-Type": "application/json" }, body: "null" },
      400,
      "INVALID_PARAMETER",
    ],
    [{ method: "DELETE", headers: auth }, 403, "OPERATOR_ONLY"],
    [{ method: "PUT", headers: auth }, 405, "METHOD_NOT_ALLOWED"],
  ];
  for (const [init, status, code] of cases) {
    const r = await t.call(url, init);
    const body = await r.json();
    assert.equal(
      r.status,
      status,
      `${init.body?.toString().slice(0, 40)} -> ${JSON.stringify(body)}`,
    );
    assert.equal(body.error.code, code);
  }
  const many = Array.from({ length: 501 }, (_, i) => ({ url: `/${i}`, title: "t", body: "b" }));
  const r = await t.call(`${url}/pages`, {
    ...admin(site.adminKey, { pages: many }),
    method: "PUT",
  });
  assert.equal(r.status, 400);
  assert.equal((await r.json()).error.param, "pages");
  t.close();
});

Deno.test("admin - a path longer than a KV key can hold is refused as a bad parameter, never a 500", async () => {
  const t = await startApp();
  const site = await createSite(t, "free");
  const long = "/" + "😀".repeat(300); // 300 characters, 1,201 bytes
  const put = await t.call(`/api/admin/sites/${site.id}/pages`, {
    ...admin(site.adminKey, { pages: [{ url: long, title: "x", body: "y" }] }),
    method: "PUT",
  });
  const body = await put.json();
  assert.equal(body.results[0].error.code, "INVALID_PARAMETER");
  assert.equal(body.results[0].error.param, "pages.0.url");
  const del = await t.call(`/api/admin/sites/${site.id}/pages?url=${encodeURIComponent(long)}`, {
    ...admin(site.adminKey),
    method: "DELETE",
  });
  assert.equal(del.status, 400);
  assert.equal((await del.json()).error.param, "url");
  t.close();
});
