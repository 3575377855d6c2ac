import assert from "node:assert/strict";
import { PLANS } from "../../lib/limits/plans.ts";
import {
  admin,
  createSite,
  numberedPages,
  OPERATOR,
  putPages,
  search,
  startApp,
} from "../helpers.ts";

Deno.test("search - answers results and meta as the spec shapes them", async () => {
  const t = await startApp();
  const site = await createSite(t, "basic");
  await putPages(t, site, [
    {
      url: "/shipping",
      title: "Shipping",
      description: "Where we ship.",
      body: "We ship to Germany in 2 days.",
    },
    { url: "/about", title: "About us", body: "A small roaster. Shipping is handled by partners." },
  ]);
  const r = await search(t, site.publicKey, "q=shipping");
  assert.equal(r.status, 200);
  assert.equal(r.body.meta.found, 2);
  assert.deepEqual(r.body.meta, {
    found: 2,
    page: 1,
    per_page: 10,
    performance_tier: "basic",
    performance_profile: "Standard",
    // docs/api.md "Filters": every page has the built-in filters, counted unless facets=false.
    facets: {
      lang: [{ value: "en", count: 2 }],
      section: [{ value: "about", count: 1 }, { value: "shipping", count: 1 }],
      type: [{ value: "page", count: 2 }],
    },
  });
  const [first, second] = r.body.results;
  assert.equal(first.url, "/shipping", "a title match ranks first");
  assert.equal(first.title, "Shipping");
  assert.equal(first.description, "Where we ship.");
  assert.deepEqual(first.highlights[0], { field: "title", snippet: "Shipping", matches: [[0, 8]] });
  assert.equal(
    second.description,
    "A small roaster. Shipping is handled by partners.",
    "falls back to the text",
  );
  t.close();
});

Deno.test("search - highlights are plain text with offsets into the snippet", async () => {
  const t = await startApp();
  const site = await createSite(t, "free");
  const filler = "Lorem ipsum dolor sit amet. ".repeat(40);
  await putPages(t, site, [{
    url: "/guide",
    title: "Brewing guide",
    body: filler + "Use a coarse grind for the French press and steep four minutes. " + filler,
  }]);
  const r = await search(t, site.publicKey, "q=french%20press");
  const body = r.body.results[0].highlights.find((h: { field: string }) => h.field === "body");
  assert.ok(body.snippet.length < 260, "a window, not the whole text");
  assert.ok(body.snippet.startsWith("…"));
  const marked = body.matches.map(([s, e]: [number, number]) => body.snippet.slice(s, e));
  assert.deepEqual(marked, ["French", "press"]);
  t.close();
});

Deno.test("search - stems, prefixes and one typo still find the page", async () => {
  const t = await startApp();
  const site = await createSite(t, "free");
  await putPages(t, site, [
    { url: "/returns", title: "Returns and refunds", body: "Refunds are issued within 14 days." },
    { url: "/cafe", title: "Our cafés", body: "Opening hours of the roastery café." },
  ]);
  for (const q of ["refund", "refunded", "retur", "refnds", "returns policy"]) {
    const r = await search(t, site.publicKey, `q=${encodeURIComponent(q)}`);
    assert.equal(r.body.results[0]?.url, "/returns", `query ${q}`);
  }
  t.close();
});

Deno.test("search - pagination and per_page caps hold for every plan", async () => {
  const t = await startApp();
  for (const plan of Object.keys(PLANS) as (keyof typeof PLANS)[]) {
    const site = await createSite(t, plan);
    await putPages(t, site, numberedPages(130));
    const max = PLANS[plan].maxPerPage;
    const capped = await search(t, site.publicKey, "q=widget&per_page=500");
    assert.equal(capped.status, 200);
    assert.equal(capped.body.meta.per_page, max, plan);
    assert.equal(capped.body.results.length, Math.min(max, 130), plan);
    assert.equal(capped.body.meta.found, 130);
    const p2 = await search(t, site.publicKey, "q=widget&per_page=7&page=2");
    assert.equal(p2.body.results.length, 7);
    assert.equal(p2.body.meta.page, 2);
    const p1 = await search(t, site.publicKey, "q=widget&per_page=7&page=1");
    const urls = new Set(
      [...p1.body.results, ...p2.body.results].map((r: { url: string }) => r.url),
    );
    assert.equal(urls.size, 14, "pages do not overlap");
    const past = await search(t, site.publicKey, "q=widget&per_page=10&page=14");
    assert.equal(past.status, 200);
    assert.deepEqual(past.body.results, []);
  }
  t.close();
});

Deno.test("search - the X-API-Key header wins over the key parameter", async () => {
  const t = await startApp();
  const a = await createSite(t, "free", "A");
  const b = await createSite(t, "basic", "B");
  const r = await t.call(`/api/search?q=x&key=${a.publicKey}`, {
    headers: { "X-API-Key": b.publicKey },
  });
  assert.equal((await r.json()).meta.performance_tier, "basic");
  const bad = await t.call(`/api/search?q=x&key=${a.publicKey}`, {
    headers: { "X-API-Key": "pk_nope" },
  });
  assert.equal(bad.status, 401);
  assert.equal((await bad.json()).error.code, "INVALID_API_KEY");
  t.close();
});

Deno.test("search - a rotated public key is refused at once and the new one works", async () => {
  const t = await startApp();
  const site = await createSite(t, "free");
  assert.equal((await search(t, site.publicKey, "q=x")).status, 200);
  const res = await t.call(
    `/api/admin/sites/${site.id}/keys/rotate`,
    admin(site.adminKey, { key: "public", graceSeconds: 0 }),
  );
  const { publicKey } = await res.json();
  assert.match(publicKey, /^pk_[0-9A-Za-z]{24}$/);
  const old = await search(t, site.publicKey, "q=x");
  assert.equal(old.status, 401);
  assert.equal(old.body.error.code, "INVALID_API_KEY");
  assert.equal((await search(t, publicKey, "q=x")).status, 200);
  t.close();
});

Deno.test("search - a key rotated on another instance is refused there within 1 s, here at once", async () => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const a = await startApp({ kvPath: path });
  const b = await startApp({ kvPath: path });
  const site = await createSite(a, "free");
  assert.equal((await search(b, site.publicKey, "q=x")).status, 200);
  await a.call(
    `/api/admin/sites/${site.id}/keys/rotate`,
    admin(site.adminKey, { key: "public", graceSeconds: 0 }),
  );
  const rotated = performance.now();
  assert.equal((await search(a, site.publicKey, "q=x")).status, 401);
  // The other instance trusts the site it read with its quota block for at most 1 s.
  let status = 200;
  while (status === 200 && performance.now() - rotated < 1_500) {
    status = (await search(b, site.publicKey, "q=x")).status;
    if (status === 200) await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(status, 401);
  assert.ok(performance.now() - rotated < 1_200, "refused within the 1 s bound");
  a.close();
  b.close();
  await Deno.remove(path);
});

Deno.test("search - an upsert is searchable at once here and within 1 s on a second instance", async () => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const a = await startApp({ kvPath: path });
  const b = await startApp({ kvPath: path });
  const site = await createSite(a, "pro");
  await putPages(a, site, numberedPages(3));
  assert.equal((await search(b, site.publicKey, "q=zeppelin")).body.meta.found, 0);
  await putPages(a, site, [{ url: "/new", title: "Zeppelin tours", body: "Fly over the lake." }]);
  assert.equal((await search(a, site.publicKey, "q=zeppelin")).body.results[0]?.url, "/new");
  const started = Date.now();
  let found = 0;
  while (Date.now() - started < 1000 && found === 0) {
    found = (await search(b, site.publicKey, "q=zeppelin")).body.meta.found;
    if (!found) await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(found, 1, "the second instance sees the page within 1 s");
  // A delete travels the same way.
  await a.call(`/api/admin/sites/${site.id}/pages?url=/new`, {
    ...admin(site.adminKey),
    method: "DELETE",
  });
  assert.equal((await search(a, site.publicKey, "q=zeppelin")).body.meta.found, 0);
  a.close();
  b.close();
  await Deno.remove(path);
});

Deno.test("search - bad inputs get their 4xx codes and spend no quota", async () => {
  const t = await startApp();
  const site = await createSite(t, "free");
  const other = await createSite(t, "free");
  await t.call(`/api/admin/sites/${site.id}`, {
    ...admin(OPERATOR, { allowedOrigins: ["https://shop.example"] }),
    method: "PATCH",
  });
  const k = site.publicKey;
  const cases: [string, RequestInit | undefined, number, string, string | null][] = [
    [`/api/search?key=${k}`, undefined, 400, "INVALID_PARAMETER", "q"],
    [`/api/search?key=${k}&q=`, undefined, 400, "INVALID_PARAMETER", "q"],
    [`/api/search?key=${k}&q=%20%20%09`, undefined, 400, "INVALID_PARAMETER", "q"],
    [`/api/search?key=${k}&q=${"a".repeat(201)}`, undefined, 400, "INVALID_PARAMETER", "q"],
    [`/api/search?key=${k}&q=a&q=b`, undefined, 400, "INVALID_PARAMETER", "q"],
    [`/api/search?key=${k}&q=a&page=0`, undefined, 400, "INVALID_PARAMETER", "page"],
    [`/api/search?key=${k}&q=a&page=-1`, undefined, 400, "INVALID_PARAMETER", "page"],
    [`/api/search?key=${k}&q=a&page=1e9`, undefined, 400, "INVALID_PARAMETER", "page"],
    [`/api/search?key=${k}&q=a&page=1000000000`, undefined, 400, "INVALID_PARAMETER", "page"],
    [`/api/search?key=${k}&q=a&per_page=abc`, undefined, 400, "INVALID_PARAMETER", "per_page"],
    [`/api/search?key=${k}&q=a&per_page=1.5`, undefined, 400, "INVALID_PARAMETER", "per_page"],
    [`/api/search?q=a`, undefined, 401, "MISSING_API_KEY", null],
    [`/api/search?q=a&key=${"x".repeat(10_240)}`, undefined, 401, "INVALID_API_KEY", null],
    [
      `/api/search?q=a`,
      { headers: { "X-API-Key": "k".repeat(10_240) } },
      401,
      "INVALID_API_KEY",
      null,
    ],
    [`/api/search?q=a&key=${site.adminKey}`, undefined, 401, "INVALID_API_KEY", null],
    [`/api/search?q=a&key=pk_${"0".repeat(24)}`, undefined, 401, "INVALID_API_KEY", null],
    [
      `/api/search?key=${k}&q=a`,
      { headers: { Origin: "https://evil.example" } },
      403,
      "ORIGIN_NOT_ALLOWED",
      null,
    ],
    [`/api/search?key=${k}&q=a`, { method: "POST" }, 405, "METHOD_NOT_ALLOWED", null],
    [`/api/searchh?key=${k}&q=a`, undefined, 404, "NOT_FOUND", null],
  ];
  for (const [path, init, status, code, param] of cases) {
    const res = await t.call(path, init);
    const text = await res.text();
    assert.equal(res.status, status, `${path.slice(0, 80)} -> ${text.slice(0, 200)}`);
    const { error } = JSON.parse(text);
    assert.equal(error.code, code, path.slice(0, 80));
    assert.equal(error.status, status);
    assert.ok(error.message.length > 0);
    if (param) assert.equal(error.param, param);
    assert.ok(
      !text.includes(site.adminKey) && !text.includes("x".repeat(100)),
      "never echoes keys",
    );
    assert.ok(!text.includes("at ") || !text.includes(".ts:"), "no stack trace");
  }
  const usage = await (await t.call(`/api/admin/sites/${site.id}/usage`, admin(site.adminKey)))
    .json();
  assert.equal(usage.minute.used, 0, "no bad request counted");
  // Broken percent-encoding is searched as typed, never a 500.
  const odd = await t.call(`/api/search?key=${other.publicKey}&q=%E0%A4%A`);
  assert.equal(odd.status, 200);
  await odd.body?.cancel();
  assert.equal(usage.month.used, 0);
  // The allowed origin, and requests without an Origin, still work; another site's key is unaffected.
  const ok = await t.call(`/api/search?key=${k}&q=a`, {
    headers: { Origin: "https://shop.example" },
  });
  assert.equal(ok.status, 200);
  await ok.body?.cancel();
  assert.equal(
    (await search(t, other.publicKey, "q=a", { headers: { Origin: "https://evil.example" } }))
      .status,
    200,
  );
  t.close();
});

Deno.test("search - a query with HTML in it comes back only as JSON text", async () => {
  const t = await startApp();
  const site = await createSite(t, "free");
  await putPages(t, site, [{
    url: "/x",
    title: "Script <b>tags</b>",
    body: "About <img src=x onerror=alert(1)> tags.",
  }]);
  const q = "<img src=x onerror=alert(1)></mark><script>alert(1)</script>";
  const res = await t.call(`/api/search?key=${site.publicKey}&q=${encodeURIComponent(q)}`);
  assert.equal(res.headers.get("content-type"), "application/json");
  const body = await res.json();
  assert.equal(res.status, 200);
  assert.equal(body.results[0].title, "Script <b>tags</b>", "stored text is returned as text");
  const tooLong = await t.call(
    `/api/search?key=${site.publicKey}&q=${encodeURIComponent(q.repeat(5))}`,
  );
  assert.equal(tooLong.headers.get("content-type"), "application/json");
  assert.equal((await tooLong.json()).error.code, "INVALID_PARAMETER");
  t.close();
});

Deno.test("search - CORS preflight allows the key header and exposes the rate-limit headers", async () => {
  const t = await startApp();
  const res = await t.call("/api/search", {
    method: "OPTIONS",
    headers: {
      Origin: "https://any.example",
      "Access-Control-Request-Method": "GET",
      "Access-Control-Request-Headers": "x-api-key",
    },
  });
  await res.body?.cancel();
  assert.equal(res.status, 204);
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  assert.match(res.headers.get("access-control-allow-headers") ?? "", /X-API-Key/i);
  const site = await createSite(t, "free");
  const r = await search(t, site.publicKey, "q=x", { headers: { Origin: "https://any.example" } });
  assert.match(r.headers.get("access-control-expose-headers") ?? "", /RateLimit-Policy/);
  assert.match(r.headers.get("access-control-expose-headers") ?? "", /X-Request-Id/);
  t.close();
});

Deno.test("search - GET /api/site tells the scripts what they need and spends nothing", async () => {
  const t = await startApp();
  const site = await createSite(t, "free", "Shop");
  const res = await t.call(`/api/site?key=${site.publicKey}`);
  assert.equal(res.headers.get("cache-control"), "public, max-age=60");
  assert.deepEqual(await res.json(), {
    name: "Shop",
    resultsPage: "/search-results",
    aiSummaries: true,
    followups: false,
    performance_tier: "free",
    lang: null,
  });
  const usage = await (await t.call(`/api/admin/sites/${site.id}/usage`, admin(site.adminKey)))
    .json();
  assert.equal(usage.month.used, 0);
  t.close();
});

Deno.test("search - logs one structured line per request, without keys or query strings", async () => {
  const lines: Record<string, unknown>[] = [];
  const t = await startApp({ log: (l) => lines.push(l) });
  const site = await createSite(t, "free");
  lines.length = 0;
  await search(t, site.publicKey, "q=secret%20words");
  await search(t, "pk_" + "x".repeat(24), "q=x");
  assert.equal(lines.length, 2);
  const [ok, bad] = lines;
  assert.equal(ok.method, "GET");
  assert.equal(ok.path, "/api/search");
  assert.equal(ok.status, 200);
  assert.equal(typeof ok.ms, "number");
  assert.equal(ok.site, site.id);
  assert.match(String(ok.request_id), /^req_/);
  assert.equal(bad.status, 401);
  const text = JSON.stringify(lines);
  assert.ok(!text.includes(site.publicKey) && !text.includes("secret"), text);
  t.close();
});

Deno.test("search - a mistyped word is highlighted as the word it was corrected to", async () => {
  const t = await startApp();
  const site = await createSite(t, "free");
  await putPages(t, site, [{
    url: "/returns",
    title: "Returns and refunds",
    body: "Refunds take 14 days.",
  }]);
  const r = await search(t, site.publicKey, "q=refnds");
  const title = r.body.results[0].highlights.find((h: { field: string }) => h.field === "title");
  assert.deepEqual(
    title.matches.map(([s, e]: [number, number]) => title.snippet.slice(s, e)),
    ["refunds"],
  );
  t.close();
});

Deno.test("search - a section heading outweighs a passing mention in the text", async () => {
  const t = await startApp();
  const site = await createSite(t, "free");
  const filler = "Other filters and tags are described on this page in detail. ".repeat(60);
  await putPages(t, site, [
    { url: "/notes", title: "Release notes", body: "Fixed a bug in filesizeformat." },
    {
      url: "/builtins",
      title: "Built-in filters",
      headings: ["date", "filesizeformat", "linebreaks"],
      body: filler + "filesizeformat formats a size. " + filler,
    },
  ]);
  const r = await search(t, site.publicKey, "q=filesizeformat");
  assert.deepEqual(r.body.results.map((x: { url: string }) => x.url), ["/builtins", "/notes"]);
  const bad = await t.call(`/api/admin/sites/${site.id}/pages`, {
    ...admin(site.adminKey, { pages: [{ url: "/x", title: "x", body: "y", headings: "nope" }] }),
    method: "PUT",
  });
  assert.equal((await bad.json()).results[0].error.param, "pages.0.headings");
  t.close();
});
