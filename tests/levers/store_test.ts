import assert from "node:assert/strict";
import { Levers } from "../../lib/levers/levers.ts";
import { WARM_MS } from "../../lib/clock.ts";
import { LeverStore } from "../../lib/levers/store.ts";
import { manualClock } from "../helpers.ts";
import { changeMarks } from "../../lib/storage/change_marks.ts";

Deno.test("lever store - a list is read whole at each version, its old chunks gone after a new write", async () => {
  const kv = await Deno.openKv(":memory:");
  const store = new LeverStore(kv);
  assert.deepEqual(await store.read("s", "synonyms"), { version: 0, items: [] });
  const big = Array.from({ length: 3000 }, (_, i) => ({ id: `x${i}`, words: [`ä${i}`, `b${i}`] }));
  assert.equal(await store.write("s", "synonyms", big), 1);
  const chunks = async () => {
    let n = 0;
    for await (const _ of kv.list({ prefix: ["levers", "s", "synonyms"] })) n++;
    return n;
  };
  const first = await chunks();
  assert.ok(first > 3, `${first} keys`);
  assert.deepEqual((await store.read("s", "synonyms")).items, big);
  assert.equal(await store.write("s", "synonyms", [{ id: "y", words: ["a", "b"] }]), 2);
  assert.equal(await chunks(), 1, "one chunk (a prefix list leaves out the head itself)");
  assert.deepEqual((await store.marked("s")).versions, {
    synonyms: 2,
    curations: 0,
    names: 0,
    answers: 0,
  });
  // Two writes at once: both land, one after the other, and one list is whole at the end.
  const [a, b] = await Promise.all([
    store.write("s", "curations", [{ id: "a" }]),
    store.write("s", "curations", [{ id: "b" }]),
  ]);
  assert.deepEqual([a, b].sort(), [1, 2]);
  const items = (await store.read<{ id: string }>("s", "curations")).items;
  assert.equal(items.length, 1);
  kv.close();
});

Deno.test("levers - a check that read KV before a change made here never brings the old list back", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = manualClock();
  const levers = new Levers(kv, clock, 500);
  await levers.current("s");
  // Another instance's change moves the site's mark: the next check reads the heads.
  await new LeverStore(kv).write("s", "curations", []);
  clock.advance(10_000);
  // The check's read of the versions is held until the change is stored.
  let release!: () => void;
  const held = new Promise<void>((r) => release = r);
  const marked = levers.store.marked.bind(levers.store);
  levers.store.marked = async (site) => {
    const v = await marked(site);
    await held;
    return v;
  };
  const checking = levers.current("s");
  await levers.putSynonyms("s", [{ id: "n", word: "nyc", means: ["new york"] }]);
  release();
  await checking;
  assert.deepEqual((await levers.current("s")).synonyms.map((x) => x.id), ["n"]);
  assert.equal((await levers.forQuery("s", "nyc")).expand?.(["nyc"], () => false).length, 1);
  kv.close();
});

Deno.test("levers - a site searched a moment ago is checked again ahead of need: its search a second later reads nothing on its path, and another instance's change still shows within 1 s", async () => {
  const kv = await Deno.openKv(":memory:");
  const levers = new Levers(kv, () => Date.now(), 500);
  const other = new Levers(kv, () => Date.now(), 500);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  try {
    await levers.forQuery("s", "nyc");
    let reads = 0;
    const marked = levers.store.marked.bind(levers.store);
    levers.store.marked = (site) => (reads++, marked(site));
    // Another instance adds a synonym (moving the site's mark); this one has not read it yet.
    await other.putSynonyms("s", [{ id: "n", word: "nyc", means: ["new york"] }]);
    await sleep(1_100);
    assert.ok(reads >= 1, "the check ran ahead of the next search");
    // From now on KV never answers: a search that needed a read would wait forever.
    let hold!: () => void;
    const never = new Promise<void>((r) => hold = r);
    levers.store.marked = async (site) => (await never, marked(site));
    const next = Promise.resolve(levers.forQuery("s", "nyc"));
    const waited = await Promise.race([next.then(() => false), sleep(2_000).then(() => true)]);
    hold();
    assert.equal(waited, false, "the search waited for a KV read");
    // What it answered with was read after the other instance's change: the synonym holds.
    assert.equal((await next).expand?.(["nyc"], () => false).length, 1);
  } finally {
    levers.close();
    other.close();
    kv.close();
  }
});

/**
 * When each check of the site's levers reads KV, from now on (performance.now()): a read of its
 * heads, or of the change marks that renews them.
 */
function readTimes(levers: Levers, kv: Deno.Kv): number[] {
  const reads: number[] = [];
  const marked = levers.store.marked.bind(levers.store);
  levers.store.marked = (site) => (reads.push(performance.now()), marked(site));
  const marks = changeMarks(kv), unchanged = marks.unchanged.bind(marks);
  marks.unchanged = (...a) => (reads.push(performance.now()), unchanged(...a));
  return reads;
}

Deno.test("levers - a site searched all the time is checked once each staleMs, its check ahead of need not a second read beside the searches' own", async () => {
  const kv = await Deno.openKv(":memory:");
  const levers = new Levers(kv, () => Date.now(), 500);
  try {
    const reads = readTimes(levers, kv);
    const end = performance.now() + 2_500;
    while (performance.now() < end) {
      await levers.forQuery("s", "nyc");
      await new Promise((r) => setTimeout(r, 10)); // a visitor's search every ~10 ms
    }
    const gaps = reads.slice(1).map((at, i) => at - reads[i]);
    assert.ok(gaps.length >= 3, `${reads.length} reads in 2.5 s`);
    for (const gap of gaps) {
      // At most 1 s apart (what a search shows is never older), and not twice a period.
      assert.ok(gap >= 0.75 * 500 && gap <= 1_000, `a read ${gap.toFixed(0)} ms after the last`);
    }
  } finally {
    levers.close();
    kv.close();
  }
});

Deno.test("levers - a site searched once is checked ahead of need until WARM_MS after its search, never longer", async () => {
  const kv = await Deno.openKv(":memory:");
  const staleMs = 250; // trusted 500 ms, checked again at 400 ms
  const levers = new Levers(kv, () => Date.now(), staleMs);
  try {
    const reads = readTimes(levers, kv);
    const searched = performance.now();
    await levers.forQuery("s", "nyc"); // one visitor's search, then none
    await new Promise((r) => setTimeout(r, WARM_MS + 800));
    const ahead = reads.slice(1).map((at) => at - searched);
    // Kept fresh for a search at any moment of WARM_MS: no gap longer than the trusted 500 ms.
    const gaps = [ahead[0], ...ahead.slice(1).map((at, i) => at - ahead[i])];
    assert.ok(
      ahead.length >= WARM_MS / (2 * staleMs) - 1,
      `${ahead.length} checks ahead: ${ahead.map((x) => x.toFixed(0))}`,
    );
    for (const gap of gaps) {
      assert.ok(gap <= 2 * staleMs, `a check ${gap.toFixed(0)} ms after the last`);
    }
    // And none past WARM_MS (a check armed before it may fire once after).
    assert.ok(ahead.at(-1)! <= WARM_MS + 2 * staleMs, `a check at ${ahead.at(-1)!.toFixed(0)} ms`);
  } finally {
    levers.close();
    kv.close();
  }
});

Deno.test("levers - a site no visitor searched is never checked ahead of need", async () => {
  const kv = await Deno.openKv(":memory:");
  const levers = new Levers(kv, () => Date.now(), 500);
  try {
    await levers.current("s"); // an owner's page or a preview, not a visitor's search
    const reads = readTimes(levers, kv);
    await new Promise((r) => setTimeout(r, 1_100));
    assert.equal(reads.length, 0);
  } finally {
    levers.close();
    kv.close();
  }
});

Deno.test("levers - a search's levers come at once (no promise) while checked within staleMs, and after a change made here", async () => {
  const kv = await Deno.openKv(":memory:");
  const clock = manualClock();
  const levers = new Levers(kv, clock, 500);
  try {
    assert.ok(levers.forQuery("s", "nyc") instanceof Promise, "never read: read from KV");
    await levers.forQuery("s", "nyc");
    const now = levers.forQuery("s", "nyc");
    assert.ok(!(now instanceof Promise));
    assert.equal(now.expand?.(["nyc"], () => false).length ?? 0, 0);
    await levers.putSynonyms("s", [{ id: "n", word: "nyc", means: ["new york"] }]);
    const changed = levers.forQuery("s", "nyc");
    assert.ok(!(changed instanceof Promise));
    assert.ok(changed.version > now.version);
    assert.equal(changed.expand?.(["nyc"], () => false).length, 1);
    clock.advance(10_000);
    assert.ok(levers.forQuery("s", "nyc") instanceof Promise, "stale: checked against KV");
  } finally {
    levers.close();
    kv.close();
  }
});
