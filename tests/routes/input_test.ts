/** Hostile bodies and the access log, through the app's fetch handler on a real KV. */
import assert from "node:assert/strict";
import { admin, createSite, OPERATOR, startApp } from "../helpers.ts";

const deep = (n: number) => "[".repeat(n) + "]".repeat(n);

Deno.test("input - a page url nested 20,000 arrays deep is a 400, not a stack overflow", async () => {
  const t = await startApp();
  const site = await createSite(t);
  const body = `{"pages":[{"url":${deep(20_000)},"title":"T","body":"b"}]}`;
  const res = await t.call(`/api/admin/sites/${site.id}/pages`, {
    method: "PUT",
    headers: { Authorization: `Bearer ${site.adminKey}`, "Content-Type": "application/json" },
    body,
  });
  const json = await res.json();
  assert.equal(res.status, 400);
  assert.equal(json.error.code, "INVALID_JSON");
  assert.match(json.error.message, /nests/);
  t.close();
});

Deno.test("input - deep nesting anywhere in any JSON body is a 4xx on every endpoint", async () => {
  const t = await startApp();
  const site = await createSite(t, "business");
  const nested = `{"a":${deep(5000)}}`;
  const calls: [string, string, string][] = [
    ["POST", "/api/admin/sites", OPERATOR],
    ["PATCH", `/api/admin/sites/${site.id}`, site.adminKey],
    ["PUT", `/api/admin/sites/${site.id}/pages`, site.adminKey],
    ["POST", `/api/admin/sites/${site.id}/crawl`, site.adminKey],
    ["POST", `/api/admin/sites/${site.id}/keys/rotate`, site.adminKey],
    ["POST", `/api/summarize?key=${site.publicKey}`, ""],
  ];
  for (const [method, path, token] of calls) {
    const res = await t.call(path, {
      method,
      headers: {
        "Content-Type": "application/json",
        ...(token ? { Authorization: `Bearer ${token}` } : {}),
      },
      body: nested,
    });
    const json = await res.json();
    assert.ok(res.status >= 400 && res.status < 500, `${method} ${path}: ${res.status}`);
    assert.ok(json.error?.code, `${method} ${path} answers the error envelope`);
  }
  t.close();
});

Deno.test("input - a per-item error echoes a url only when it is a string", async () => {
  const t = await startApp();
  const site = await createSite(t);
  const res = await t.call(`/api/admin/sites/${site.id}/pages`, {
    ...admin(site.adminKey, {
      pages: [
        { url: [[["x"]]], title: "A", body: "a" },
        { url: { toString: "no" }, title: "B", body: "b" },
        { url: 42, title: "C", body: "c" },
        { url: "/ok", title: "D", body: "d" },
        { url: "no-slash", title: "E", body: "e" },
      ],
    }),
    method: "PUT",
  });
  const json = await res.json();
  assert.equal(res.status, 200);
  assert.deepEqual(
    json.results.map((r: { url: unknown; status: string }) => [r.url, r.status]),
    [[null, "failed"], [null, "failed"], [null, "failed"], ["/ok", "created"], [
      "no-slash",
      "failed",
    ]],
  );
  t.close();
});

Deno.test("input - invalid UTF-8 in one page's body refuses that page only, with a clear message", async () => {
  const t = await startApp();
  const site = await createSite(t);
  const enc = new TextEncoder();
  const parts = [
    enc.encode('{"pages":[{"url":"/good","title":"Good","body":"caf\u00e9 fine"},'),
    enc.encode('{"url":"/bad","title":"Bad","body":"broken '),
    new Uint8Array([0xff, 0xfe, 0xc3]),
    enc.encode(' bytes"}]}'),
  ];
  const body = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (body.set(p, at), at + p.length), 0);
  const res = await t.call(`/api/admin/sites/${site.id}/pages`, {
    method: "PUT",
    headers: { Authorization: `Bearer ${site.adminKey}`, "Content-Type": "application/json" },
    body,
  });
  const json = await res.json();
  assert.equal(res.status, 200);
  assert.deepEqual(json.counts, { created: 1, updated: 0, unchanged: 0, failed: 1 });
  assert.equal(json.results[1].url, "/bad");
  assert.equal(json.results[1].error.code, "INVALID_PARAMETER");
  assert.equal(json.results[1].error.param, "pages.1.body");
  assert.match(json.results[1].error.message, /not valid UTF-8/);
  const page = await t.services.pages.get(site.id, "/good");
  assert.equal(page?.body, "caf\u00e9 fine");
  assert.equal(await t.services.pages.get(site.id, "/bad"), null);
  t.close();
});

Deno.test("input - the access log records the status the client got, 404s included", async () => {
  const lines: Record<string, unknown>[] = [];
  const t = await startApp({ log: (l) => lines.push(l) });
  const res = await t.call("/favicon.ico");
  assert.equal(res.status, 404);
  await res.body?.cancel();
  const bad = await t.call("/api/search?q=x");
  assert.equal(bad.status, 401);
  await bad.body?.cancel();
  const logged = lines.filter((l) => l.path).map((l) => [l.path, l.status]);
  assert.deepEqual(logged, [["/favicon.ico", 404], ["/api/search", 401]]);
  t.close();
});
