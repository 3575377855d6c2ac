/**
 * GET /api/search remembers query strings it has checked (routes/api/search.ts): a query string
 * asked again must be answered exactly as the first time, its key checked again each time, and
 * a refused one refused again.
 */
import assert from "node:assert/strict";
import { createSite, putPages, startApp } from "../helpers.ts";

async function setup() {
  const t = await startApp();
  const site = await createSite(t, "enterprise");
  const other = await createSite(t, "enterprise", "Other");
  await putPages(t, site, [
    { url: "/kettle", title: "Kettle", body: "A quiet kettle for green tea." },
    { url: "/teapot", title: "Teapot", body: "A teapot for black tea and green tea." },
  ]);
  await putPages(t, other, [{ url: "/mug", title: "Mug", body: "A mug for tea." }]);
  await t.services.sites.update(site.id, (x) => ({ ...x, limits: { searchesPerMinute: 100_000 } }));
  return { t, site, other };
}

const ask = async (t: Awaited<ReturnType<typeof setup>>["t"], path: string, init?: RequestInit) => {
  const res = await t.call(path, init);
  return { status: res.status, body: await res.json() };
};
const withoutId = (body: { error?: { request_id?: string } }) =>
  body.error ? { ...body, error: { ...body.error, request_id: "ID" } } : body;

Deno.test("search asked again - the same query string is answered the same, its key checked each time", async () => {
  const { t, site, other } = await setup();
  try {
    const path = `/api/search?key=${site.publicKey}&q=green+tea&per_page=1`;
    const first = await ask(t, path);
    assert.equal(first.status, 200);
    assert.equal(first.body.results.length, 1);
    assert.deepEqual(await ask(t, path), first);
    // The same text with another site's key in the header (the header wins): that site's answer.
    const theirs = await ask(t, path, { headers: { "X-API-Key": other.publicKey } });
    assert.equal(theirs.status, 200);
    assert.equal(theirs.body.results[0]?.url, "/mug");
    // An admin key in the header, then no usable key: refused though the text was accepted.
    const adminKey = await ask(t, path, { headers: { "X-API-Key": site.adminKey } });
    assert.equal(adminKey.status, 401);
    assert.equal(adminKey.body.error.code, "INVALID_API_KEY");
    const noKey = `/api/search?q=green+tea&per_page=1`;
    for (let i = 0; i < 2; i++) {
      const r = await ask(t, noKey);
      assert.equal(r.status, 401);
      assert.equal(r.body.error.code, "MISSING_API_KEY");
    }
    assert.equal((await ask(t, noKey, { headers: { "X-API-Key": site.publicKey } })).status, 200);
  } finally {
    t.close();
  }
});

Deno.test("search asked again - a refused query string is refused again the same way, and filters apply every time", async () => {
  const { t, site } = await setup();
  try {
    const k = site.publicKey;
    for (
      const path of [
        `/api/search?key=${k}&q=tea&page=0`,
        `/api/search?key=${k}&key=${k}&q=tea`,
        `/api/search?key=${k}&q=tea&q=tea`,
        `/api/search?key=${k}&q=%20`,
        `/api/search?key=${k}&q=tea&facets=maybe`,
      ]
    ) {
      const first = await ask(t, path);
      assert.equal(first.status, 400, path);
      assert.deepEqual(withoutId((await ask(t, path)).body), withoutId(first.body), path);
    }
    const filtered = `/api/search?key=${k}&q=tea&filter=lang%3Axx`;
    const a = await ask(t, filtered), b = await ask(t, filtered);
    assert.equal(a.status, 200);
    assert.equal(a.body.meta.found, 0); // no page is in that language
    assert.deepEqual(b, a);
    assert.equal((await ask(t, `/api/search?key=${k}&q=tea`)).body.meta.found, 2);
  } finally {
    t.close();
  }
});

Deno.test("search asked again - past a thousand different query strings, each is still answered for its own words", async () => {
  const { t, site } = await setup();
  try {
    const path = (i: number) =>
      `/api/search?key=${site.publicKey}&q=${i % 2 ? "kettle" : "teapot"}+${i}`;
    for (let i = 0; i < 1_100; i++) {
      const r = await ask(t, path(i));
      assert.equal(r.status, 200);
      assert.equal(r.body.results[0]?.url, i % 2 ? "/kettle" : "/teapot", path(i));
    }
    assert.equal((await ask(t, path(1))).body.results[0]?.url, "/kettle");
  } finally {
    t.close();
  }
});

Deno.test("search asked again - q is trimmed and held to 200 characters (code points, not UTF-16 units), with other parameters or without", async () => {
  const { t, site } = await setup();
  try {
    const k = site.publicKey;
    const get = (params: string) => ask(t, `/api/search?key=${k}&${params}`);
    const plain = await get("q=kettle");
    assert.equal(plain.status, 200);
    assert.deepEqual((await get("q=%20%20kettle%20")).body.results, plain.body.results);
    assert.deepEqual((await get("q=kettle&_=1700000000")).body.results, plain.body.results);
    assert.equal((await get("q=kettle&page=1&per_page=10")).body.results.length, 1);
    const astral = encodeURIComponent("𝄞");
    for (
      const [params, status] of [
        [`q=${"a".repeat(200)}`, 200],
        [`q=${"a".repeat(201)}`, 400],
        [`q=${astral.repeat(200)}`, 200], // 400 UTF-16 units, 200 characters
        [`q=${astral.repeat(201)}`, 400],
        [`q=%20${"a".repeat(200)}%20`, 200],
        ["q=%20%20", 400],
        ["q=", 400],
      ] as const
    ) {
      for (const extra of ["", "&per_page=5"]) {
        const r = await get(params + extra);
        assert.equal(r.status, status, params + extra);
        if (status === 400) assert.equal(r.body.error.code, "INVALID_PARAMETER");
        if (status === 400) assert.match(r.body.error.message, /^q must/, params + extra);
      }
    }
  } finally {
    t.close();
  }
});
