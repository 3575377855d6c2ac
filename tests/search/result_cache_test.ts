import assert from "node:assert/strict";
import { ResultCache } from "../../lib/search/result_cache.ts";

const body = (n: number) => ({ bytes: new Uint8Array(n), found: n });

Deno.test("result cache - a key differs by site, index version, plan and every parameter", () => {
  const keys = new Set([
    ResultCache.key({ site: "s1", version: 1, plan: "free", q: "tea", page: 1, perPage: 10 }),
    ResultCache.key({ site: "s2", version: 1, plan: "free", q: "tea", page: 1, perPage: 10 }),
    ResultCache.key({ site: "s1", version: 2, plan: "free", q: "tea", page: 1, perPage: 10 }),
    ResultCache.key({ site: "s1", version: 1, plan: "pro", q: "tea", page: 1, perPage: 10 }),
    ResultCache.key({ site: "s1", version: 1, plan: "free", q: "teas", page: 1, perPage: 10 }),
    ResultCache.key({ site: "s1", version: 1, plan: "free", q: "tea", page: 2, perPage: 10 }),
    ResultCache.key({ site: "s1", version: 1, plan: "free", q: "tea", page: 1, perPage: 20 }),
  ]);
  assert.equal(keys.size, 7);
});

Deno.test("result cache - holds at most maxBytes and evicts the least recently used first", () => {
  const cache = new ResultCache(8_000);
  cache.set("a", body(900));
  cache.set("b", body(900));
  assert.equal(cache.get("a")?.found, 900); // a is now the most recently used
  for (let i = 0; i < 10; i++) cache.set(`k${i}`, body(900));
  assert.ok(cache.bytes <= 8_000, `held ${cache.bytes}`);
  assert.equal(cache.get("b"), undefined);
  assert.equal(cache.get("k9")?.found, 900);
});

Deno.test("result cache - an entry over an eighth of the budget is not kept", () => {
  const cache = new ResultCache(8_000);
  cache.set("small", body(100));
  cache.set("huge", body(2_000));
  assert.equal(cache.get("huge"), undefined);
  assert.equal(cache.get("small")?.found, 100);
});

Deno.test("result cache - setting a key again replaces it and keeps the byte count exact", () => {
  const cache = new ResultCache(100_000);
  cache.set("a", body(500));
  cache.set("a", body(700));
  assert.equal(cache.size, 1);
  assert.equal(cache.bytes, 700 + 2);
  assert.equal(cache.get("a")?.found, 700);
});

Deno.test("result cache - storing a site's newer index version drops that site's older answers, and no answer of an older version is stored after", () => {
  const cache = new ResultCache(1_000_000);
  const k = (site: string, version: number, q: string) =>
    ResultCache.key({ site, version, plan: "free", q, page: 1, perPage: 10 });
  cache.set(k("s1", 1, "tea"), body(100));
  cache.set(k("s1", 1, "pot"), body(100));
  cache.set(k("s2", 1, "tea"), body(100));
  cache.set(k("s1", 2, "tea"), body(200));
  assert.equal(cache.get(k("s1", 1, "tea")), undefined);
  assert.equal(cache.get(k("s1", 1, "pot")), undefined);
  assert.equal(cache.get(k("s2", 1, "tea"))?.found, 100, "another site's answers stay");
  assert.equal(cache.get(k("s1", 2, "tea"))?.found, 200);
  assert.equal(cache.size, 2);
  assert.equal(cache.bytes, 100 + 200 + 2 * (k("s2", 1, "tea").length + k("s1", 2, "tea").length));
  // A search that read the index before it caught up finishes late: its answer is not kept.
  cache.set(k("s1", 1, "cup"), body(100));
  assert.equal(cache.get(k("s1", 1, "cup")), undefined);
  assert.equal(cache.size, 2);
});

Deno.test("result cache - an entry asked again and again stays the most recently used, whatever was asked between", () => {
  const cache = new ResultCache(8_100); // room for eight entries of 1,000 bytes (and keys)
  for (const k of ["a", "k1", "k2", "k3", "k4", "k5", "k6", "k7"]) cache.set(k, body(1_000));
  for (let i = 0; i < 3; i++) assert.equal(cache.get("a")?.found, 1_000); // a repeated query
  cache.get("k1");
  cache.get("a"); // the newest again after k1
  for (let i = 0; i < 6; i++) cache.set(`new${i}`, body(1_000)); // k2 to k7 go, oldest first
  for (let i = 2; i <= 7; i++) assert.equal(cache.get(`k${i}`), undefined);
  assert.equal(cache.size, 8);
  cache.set("new6", body(1_000)); // then k1, asked before a's last time

  assert.equal(cache.get("k1"), undefined);
  assert.equal(cache.get("a")?.found, 1_000);
  assert.equal(cache.size, 8);
});

Deno.test("result cache - a key dropped while it was the newest is not answered again", () => {
  const cache = new ResultCache(100_000);
  const old = ResultCache.key({
    site: "s1",
    version: 1,
    plan: "free",
    q: "tea",
    page: 1,
    perPage: 10,
  });
  cache.set(old, body(100));
  assert.equal(cache.get(old)?.found, 100);
  cache.set(
    ResultCache.key({ site: "s1", version: 2, plan: "free", q: "tea", page: 1, perPage: 10 }),
    body(200),
  ); // a new index version
  assert.equal(cache.get(old), undefined);
  assert.equal(cache.size, 1);
});
