/** Typing sessions' pending queries: replaced, finished by quiet, a click or Enter, and bounded. */
import assert from "node:assert/strict";
import { Analytics } from "../../lib/analytics/recorder.ts";
import { QUIET_MS, SETTLE_MS, TypingSessions } from "../../lib/analytics/typing.ts";
import { manualClock } from "../helpers.ts";

const queries = (ps: readonly { q: string }[]) => ps.map((p) => p.q);

Deno.test("typing - a session's next request replaces its pending query; quiet sessions come out in order", () => {
  const t = new TypingSessions();
  t.ask({ siteId: "s1", session: "a", q: "How do", found: 3, at: 0 });
  t.ask({ siteId: "s1", session: "b", q: "Kettle", found: 2, at: 100 });
  t.ask({ siteId: "s1", session: "a", q: "How  do I STORE", found: 1, at: 200 });
  t.ask({ siteId: "s2", session: "a", q: "other site", found: 0, at: 300 });
  assert.deepEqual(
    t.quiet(QUIET_MS + 99),
    [],
    "b was asked at 100: quiet from 100 + QUIET_MS",
  );
  assert.deepEqual(queries(t.quiet(QUIET_MS + 150)), ["kettle"]);
  const rest = t.quiet(QUIET_MS + 300);
  assert.deepEqual(rest.map((p) => [p.siteId, p.q, p.found, p.at]), [
    ["s1", "how do i store", 1, 200],
    ["s2", "other site", 0, 300],
  ]);
  assert.equal(t.size, 0);
});

Deno.test("typing - a click finishes exactly its query's sessions; Enter drops the prefixes it completes", () => {
  const t = new TypingSessions();
  t.ask({ siteId: "s1", session: "a", q: "cold br", found: 1, at: 0 });
  t.ask({ siteId: "s1", session: "b", q: "cold brew", found: 1, at: 0 });
  t.ask({ siteId: "s1", session: "c", q: "cold brew", found: 1, at: 0 });
  t.ask({ siteId: "s2", session: "d", q: "cold brew", found: 1, at: 0 });
  assert.deepEqual(queries(t.clicked("s1", " Cold  Brew ")), ["cold brew", "cold brew"]);
  t.ask({ siteId: "s1", session: "e", q: "kettle desc", found: 1, at: 0 });
  t.ask({ siteId: "s1", session: "f", q: "kettles", found: 1, at: 0 });
  t.acted("s1", "Kettle descaling");
  assert.deepEqual(queries(t.quiet(Infinity)), ["cold br", "kettles", "cold brew"]);
});

Deno.test("typing - a site keeps at most 2,000 pending sessions; the oldest is pushed out to be counted", () => {
  const t = new TypingSessions();
  for (let i = 0; i < 2_000; i++) {
    assert.equal(t.ask({ siteId: "s1", session: `x${i}`, q: `q${i}`, found: 1, at: i }), null);
  }
  const out = t.ask({ siteId: "s1", session: "new", q: "newest", found: 1, at: 5_000 });
  assert.equal(out?.q, "q0");
  assert.equal(t.quiet(Infinity).length, 2_000);
});

Deno.test("typing - across instances, a query counts unless another instance saw the session within its quiet window", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = manualClock();
  const [a, b] = [new Analytics(kv, clock, 60_000), new Analytics(kv, clock, 60_000)];
  /** Moves the clock as the flush timers would see it: a flush of both every 5 s. */
  const tick = async (ms: number) => {
    for (let left = ms; left > 0; left -= 5_000) {
      clock.advance(Math.min(5_000, left));
      await a.flush();
      await b.flush();
    }
  };
  try {
    // One question whose requests hop from a to b and go on there for longer than QUIET_MS.
    a.search("s", "how do", 1, { session: "hop" });
    for (
      const q of ["how do i", "how do i st", "how do i sto", "how do i stor", "how do i store"]
    ) {
      await tick(2_500);
      b.search("s", q, 1, { session: "hop" });
    }
    // Another visitor: a question, a pause longer than QUIET_MS, then more words (one instance).
    a.search("s", "kettle", 1, { session: "pause" });
    await tick(15_000);
    a.search("s", "kettle descaling", 1, { session: "pause" });
    await tick(SETTLE_MS + 10_000);
    const top: [string, number][] = [];
    for await (const e of kv.list<Deno.KvU64>({ prefix: ["an", "s"] })) {
      if (e.key[3] === "q") top.push([String(e.key[4]), Number(e.value.value)]);
    }
    assert.deepEqual(top.sort(([x], [y]) => x.localeCompare(y)), [["how do i store", 1], [
      "kettle",
      1,
    ], ["kettle descaling", 1]]);
    for await (const e of kv.list({ prefix: ["antyping"] })) assert.fail(`left: ${e.key}`);
  } finally {
    a.discard();
    b.discard();
    kv.close();
  }
});

/** The reformulations counted in `kv`: [from, to, visitors]. */
async function reformulations(kv: Deno.Kv) {
  const out: [string, string, number][] = [];
  for await (const e of kv.list<Deno.KvU64>({ prefix: ["an"] })) {
    if (e.key[3] === "r") out.push([String(e.key[4]), String(e.key[5]), Number(e.value.value)]);
  }
  return out;
}

Deno.test("typing - a query that found nothing, left for another that found pages, is counted as a reformulation once per finished question", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = manualClock();
  const a = new Analytics(kv, clock, 60_000);
  try {
    // Left for another word: counted when that question finishes (quiet, a click, Enter).
    a.search("s", "tshrit", 0, { session: "click" });
    a.search("s", "t-shirt", 4, { session: "click" });
    a.click("s", 1, "t-shirt", "/shirts");
    a.search("s", "tshrit", 0, { session: "enter" });
    a.search("s", "t-shirt", 4, { session: "enter" });
    a.search("s", "t-shirt", 4);
    a.search("s", "tshrit", 0, { session: "quiet" });
    a.search("s", "t-shirt", 4, { session: "quiet" });
    // Typed on from a prefix that found nothing: the same question, no reformulation.
    a.search("s", "t-sh", 0, { session: "prefix" });
    a.search("s", "t-shirt", 4, { session: "prefix" });
    // Found nothing in the end: nothing learnt either.
    a.search("s", "tshrit", 0, { session: "lost" });
    a.search("s", "tshirtt", 0, { session: "lost" });
    clock.advance(QUIET_MS);
    await a.flush();
    clock.advance(SETTLE_MS);
    await a.flush();
    assert.deepEqual(await reformulations(kv), [["tshrit", "t-shirt", 3]]);
  } finally {
    a.discard();
    kv.close();
  }
});

Deno.test("typing - two long queries of a reformulation fit one KV key", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = manualClock();
  const a = new Analytics(kv, clock, 60_000);
  try {
    a.search("s", "𝔵".repeat(400), 0, { session: "long-one" });
    a.search("s", "𝔶".repeat(400), 3, { session: "long-one" });
    await a.close();
    const [[from, to, n]] = await reformulations(kv);
    assert.deepEqual([[...from].length, [...to].length, n], [200, 200, 1]);
  } finally {
    kv.close();
  }
});
