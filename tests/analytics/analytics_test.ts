/** Search analytics: counted in memory, written in batches, read back as docs/api.md's report. */
import assert from "node:assert/strict";
import { Analytics } from "../../lib/analytics/recorder.ts";
import { emptyQueryKey, normalizeQuery, queryKey } from "../../lib/analytics/keys.ts";
import { analyticsReport, dayRange } from "../../lib/analytics/report.ts";
import { QUIET_MS, SETTLE_MS } from "../../lib/analytics/typing.ts";
import { createSite, manualClock, putPages, search, startApp } from "../helpers.ts";

const DAY = 86_400_000;

async function allAnalyticsKeys(kv: Deno.Kv) {
  const out: { key: Deno.KvKey; value: unknown }[] = [];
  for await (const e of kv.list({ prefix: ["an"] })) out.push({ key: e.key, value: e.value });
  return out;
}

/** Runs `body` on a fresh Analytics over an in-memory KV, then discards both. */
async function withAnalytics(
  body: (a: Analytics, kv: Deno.Kv, clock: ReturnType<typeof manualClock>) => Promise<void>,
) {
  const kv = await Deno.openKv(":memory:");
  const clock = manualClock();
  const a = new Analytics(kv, clock, 60_000);
  try {
    await body(a, kv, clock);
  } finally {
    a.discard();
    kv.close();
  }
}

Deno.test("analytics - queries are trimmed, lower-cased, their accents dropped, whitespace collapsed", () => {
  assert.equal(normalizeQuery("  Pour   OVER\tGuide \n"), "pour over guide");
  assert.equal(normalizeQuery("Ünïcode  Café"), "unicode cafe");
  assert.equal(normalizeQuery("   "), "");
});

Deno.test("analytics - a query of any length is cut so that its KV keys fit", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const q = normalizeQuery("😀".repeat(1_000)); // 4 bytes a character in UTF-8
    assert.ok([...q].length < 1_000);
    const site = "site_" + "x".repeat(16);
    await kv.set(queryKey(site, "2026-11-15", q), 1);
    await kv.set(emptyQueryKey(site, "2026-11-15", q), 1);
  } finally {
    kv.close();
  }
});

Deno.test("analytics - counts stay in memory until a flush, then land in KV as sums", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = manualClock();
  const a = new Analytics(kv, clock, 60_000);
  try {
    a.search("site_a", "Shipping", 3);
    a.search("site_a", "  shipping ", 2);
    a.search("site_a", "Zebra", 0);
    a.answer("site_a");
    a.click("site_a", 2, "kettle");
    a.click("site_a", 4, "kettle");
    assert.equal((await allAnalyticsKeys(kv)).length, 0, "nothing written before the flush");
    await a.flush();
    const r = await analyticsReport(kv, clock, "site_a", 7);
    assert.equal(r.days.length, 7);
    assert.deepEqual(r.days.at(-1), { date: "2026-11-15", searches: 3, answers: 1, noResults: 1 });
    assert.deepEqual(r.topQueries, [
      { query: "shipping", count: 2, noResults: 0, clicks: 0, ctr: 0 },
      { query: "Zebra", count: 1, noResults: 1, clicks: 0, ctr: 0 },
    ]);
    assert.deepEqual(r.noResultQueries, [{ query: "Zebra", count: 1 }]);
    assert.deepEqual(r.noClickQueries, [{ query: "shipping", count: 2 }]);
    assert.deepEqual(r.clicks, { count: 2, ctr: 0.6667, averagePosition: 3 });
    // A second instance's counts add up with the first's.
    const b = new Analytics(kv, clock, 60_000);
    b.search("site_a", "shipping", 1);
    await b.close();
    const again = await analyticsReport(kv, clock, "site_a", 7);
    assert.equal(again.topQueries[0].count, 3);
    assert.equal(again.days.at(-1)!.searches, 4);
  } finally {
    a.discard();
    kv.close();
  }
});

Deno.test("analytics - the timer flushes by itself, and days outside the window are left out", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = manualClock();
  const a = new Analytics(kv, clock, 20);
  try {
    a.search("s", "old query", 1);
    clock.advance(10 * DAY);
    a.search("s", "new query", 1);
    await new Promise((r) => setTimeout(r, 80));
    assert.ok((await allAnalyticsKeys(kv)).length > 0, "the timer wrote the batch");
    const week = await analyticsReport(kv, clock, "s", 7);
    assert.deepEqual(week.topQueries.map((q) => q.query), ["new query"]);
    const month = await analyticsReport(kv, clock, "s", 30);
    assert.deepEqual(month.topQueries.map((q) => q.query).sort(), ["new query", "old query"]);
    assert.equal(dayRange(clock(), 3).length, 3);
    assert.equal(dayRange(clock(), 3).at(-1), "2026-11-25");
  } finally {
    a.discard();
    kv.close();
  }
});

Deno.test("analytics - a search costs no KV write of its own, and no IP or key is stored", async () => {
  const t = await startApp({ analyticsFlushMs: 60_000 });
  try {
    const site = await createSite(t, "basic");
    await putPages(t, site, [{ url: "/a", title: "Alpha", body: "Alpha page about kettles." }]);
    const before = t.services.quota.stats.commits;
    for (let i = 0; i < 5; i++) {
      const r = await search(t, site.publicKey, "q=Kettles");
      assert.equal(r.status, 200);
    }
    const commits = t.services.quota.stats.commits - before;
    assert.ok(commits >= 1 && commits <= 5, "at most one quota commit per search");
    assert.equal((await allAnalyticsKeys(t.kv)).length, 0, "counted in memory, not yet in KV");
    await t.services.analytics.flush();
    const stored = JSON.stringify(
      await allAnalyticsKeys(t.kv),
      (_, v) => typeof v === "bigint" ? String(v) : v,
    );
    assert.ok(stored.includes('"kettles"'));
    assert.ok(!stored.includes(site.publicKey), "no key");
    assert.ok(!/127\.0\.0\.1|unknown/.test(stored), "no IP address");
  } finally {
    t.close();
  }
});

Deno.test("analytics - with no one reading the report, a typing session's last query is noted, settled and written by the timer", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = manualClock();
  const a = new Analytics(kv, clock, 20);
  const counts = async () => (await allAnalyticsKeys(kv)).filter((e) => e.key[3] === "q");
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
  try {
    a.search("site_a", "kett", 3, { session: "sess_timer" });
    a.search("site_a", "kettle", 3, { session: "sess_timer" });
    clock.advance(QUIET_MS);
    await wait(120);
    assert.deepEqual(await counts(), [], "quiet, noted, not settled yet");
    const notes = [];
    for await (const e of kv.list({ prefix: ["antyping"] })) notes.push(e.key.slice(0, 3));
    assert.deepEqual(notes, [["antyping", "site_a", "sess_timer"]]);
    clock.advance(SETTLE_MS);
    await wait(120);
    assert.deepEqual((await counts()).map((e) => e.key[4]), ["kettle"]);
    for await (const e of kv.list({ prefix: ["antyping"] })) assert.fail(`left: ${e.key}`);
  } finally {
    a.discard();
    await wait(30); // a flush under way ends before the KV closes
    kv.close();
  }
});

Deno.test("analytics - counts whose parts hold NUL stay under their own keys", () =>
  withAnalytics(async (a, kv) => {
    // Joined with NUL between their parts, these two clicks' keys would read the same.
    a.click("site_a", 1, "x", "/a\u0000/b");
    a.click("site_a", 3, "x\u0000/a", "/b");
    await a.flush();
    const clicks = (await allAnalyticsKeys(kv)).filter((e) => e.key[3] === "c");
    assert.deepEqual(
      clicks.map((e) => [e.key.slice(4), (e.value as Deno.KvU64).value]).sort(),
      [[["x", "/a\u0000/b"], 1n], [["x\u0000/a", "/b"], 1n]].sort(),
    );
  }));

Deno.test("analytics - the same text searched on two days counts on each day, typed form and all", () =>
  withAnalytics(async (a, kv, clock) => {
    a.search("site_a", "Kettle Care?", 3);
    a.search("site_a", "Kettle Care?", 3);
    a.search("site_b", "Kettle Care?", 0);
    clock.advance(DAY);
    a.search("site_a", "Kettle Care?", 3);
    await a.flush();
    const r = await analyticsReport(kv, clock, "site_a", 2);
    assert.deepEqual(r.days.map((d) => [d.date, d.searches]), [
      ["2026-11-15", 2],
      ["2026-11-16", 1],
    ]);
    assert.deepEqual(r.topQueries.map((q) => [q.query, q.count]), [["Kettle Care?", 3]]);
    const b = await analyticsReport(kv, clock, "site_b", 2);
    assert.deepEqual(b.noResultQueries, [{ query: "Kettle Care?", count: 1 }]);
  }));

Deno.test("analytics - a text searched again after 10,000 others still counts on its own query", () =>
  withAnalytics(async (a, kv, clock) => {
    a.search("site_a", "Kettle", 3);
    for (let i = 0; i < 10_000; i++) a.search(`site_${i % 7}`, `other ${i}`, 1);
    a.search("site_a", "Kettle", 3);
    await a.flush();
    const r = await analyticsReport(kv, clock, "site_a", 1);
    assert.deepEqual(r.topQueries.map((q) => [q.query, q.count]), [["Kettle", 2]]);
    assert.equal(r.days.at(-1)?.searches, 2);
  }));
