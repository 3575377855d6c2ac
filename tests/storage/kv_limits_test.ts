import assert from "node:assert/strict";
import {
  boundBytes,
  capList,
  checkWrite,
  commitBatches,
  commitBatchesInSlices,
  cutUtf8,
  isKvLimitError,
  keyBytes,
  KV_LIMITS,
  KvLimitError,
  splitList,
  valueBytes,
} from "../../lib/storage/kv_limits.ts";
import { PageStore } from "../../lib/sites/pages.ts";

/** Whether KV itself accepts the write. */
async function kvTakes(kv: Deno.Kv, key: Deno.KvKey, value: unknown): Promise<boolean> {
  try {
    await kv.set(key, value);
    return true;
  } catch (err) {
    assert.ok(isKvLimitError(err), String(err));
    return false;
  }
}

Deno.test("kv limits - the value limit is KV's own, to the byte, for one-byte and two-byte strings", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    for (const char of ["a", "→"]) {
      // Grow the string until KV refuses it: our count must agree at the edge.
      let n = char === "a" ? 65_520 : 32_760;
      while (await kvTakes(kv, ["v"], char.repeat(n))) {
        assert.ok(valueBytes(char.repeat(n)) <= KV_LIMITS.valueBytes);
        n++;
      }
      assert.equal(valueBytes(char.repeat(n)), KV_LIMITS.valueBytes + (char === "a" ? 1 : 2));
    }
    const bytes = new Uint8Array(KV_LIMITS.valueBytes);
    assert.equal(valueBytes(bytes), KV_LIMITS.valueBytes);
    assert.ok(await kvTakes(kv, ["b"], bytes));
  } finally {
    kv.close();
  }
});

Deno.test("kv limits - the key limit is KV's own, with zero bytes escaped and numbers counted", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    for (const tail of ["", "\0", "é"]) {
      let n = 2030;
      while (true) {
        const key = ["k" + tail + "x".repeat(n), 7];
        const ours = keyBytes(key) <= KV_LIMITS.keyBytes;
        assert.equal(await kvTakes(kv, key, 1), ours, `key of ${keyBytes(key)} bytes`);
        if (!ours) break;
        n++;
      }
    }
    assert.throws(() => checkWrite(["x".repeat(3000)], 1), KvLimitError);
    assert.throws(() => checkWrite(["x"], "y".repeat(70_000)), KvLimitError);
    assert.ok(checkWrite(["x"], "y") >= valueBytes("y"));
  } finally {
    kv.close();
  }
});

Deno.test("kv limits - a capped list of 20,000 URLs is one value KV takes, and says how many were left out", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const urls = Array.from({ length: 20_000 }, (_, i) => `https://example.com/a/page-${i}→`);
    const { kept, left } = capList(urls, KV_LIMITS.valueBytes - 1024);
    assert.ok(kept.length > 100 && left > 0 && kept.length + left === urls.length);
    assert.ok(valueBytes(kept) <= KV_LIMITS.valueBytes);
    assert.ok(await kvTakes(kv, ["list"], kept));
    // The estimate is safe yet close: the value uses nearly all of the budget.
    assert.ok(valueBytes(kept) > (KV_LIMITS.valueBytes - 1024) * 0.9);
  } finally {
    kv.close();
  }
});

Deno.test("kv limits - split groups each fit a value, keep every item in order, and set apart the oversize one", () => {
  const items = Array.from({ length: 5_000 }, (_, i) => ({ url: `/p/${i}`, reason: "off_site" }));
  items.splice(10, 0, { url: "x".repeat(70_000), reason: "too_large" });
  const { groups, oversize } = splitList(items);
  assert.equal(oversize.length, 1);
  assert.deepEqual(groups.flat(), items.filter((x) => x.url.length < 70_000));
  for (const g of groups) assert.ok(valueBytes(g) <= KV_LIMITS.valueBytes);
});

Deno.test("kv limits - writes split into commits that KV accepts: long keys, big values, many mutations", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const writes: [Deno.KvKey, unknown][] = [
      ...Array.from(
        { length: 300 },
        (_, i): [Deno.KvKey, unknown] => [["long", "u".repeat(1900), i], i],
      ),
      ...Array.from(
        { length: 30 },
        (_, i): [Deno.KvKey, unknown] => [["big", i], "v".repeat(60_000)],
      ),
      ...Array.from({ length: 2500 }, (_, i): [Deno.KvKey, unknown] => [["many", i], i]),
    ];
    const batches = commitBatches(writes, { mutations: 1, keyBytes: 100, bytes: 100 });
    assert.deepEqual(batches.flat(), writes);
    for (const batch of batches) {
      const op = kv.atomic().check({ key: ["guard"], versionstamp: null });
      for (const [k, v] of batch) op.set(k, v);
      assert.ok((await op.commit()).ok);
    }
    let n = 0;
    for await (const _ of kv.list({ prefix: [] })) n++;
    assert.equal(n, writes.length);
    assert.throws(() => commitBatches([[["k"], "z".repeat(66_000)]]), KvLimitError);
  } finally {
    kv.close();
  }
});

Deno.test("kv limits - cutting text to a byte budget never splits a character", () => {
  assert.equal(cutUtf8("héllo", 2), "h");
  assert.equal(cutUtf8("héllo", 3), "hé");
  assert.equal(cutUtf8("a😀b", 4), "a");
  assert.equal(cutUtf8("short", 100), "short");
});

Deno.test("kv limits - the cheap bound is never below the real size, even for a Latin-1 string cut from a wider one", () => {
  const wide = "→" + "a".repeat(5000);
  const values: unknown[] = [
    "plain",
    wide.slice(1),
    { url: "/x", reason: "off_site", n: 3.5, ok: true, none: null },
    [wide, ["nested", 1], { a: wide.slice(2) }],
  ];
  for (const v of values) assert.ok(boundBytes(v) >= valueBytes(v), JSON.stringify(v).slice(0, 40));
  assert.ok(Number.isNaN(boundBytes(new Map())));
});

Deno.test("kv limits - a page's metadata keeps as many long two-byte headings or sections as one value holds, never more", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const pages = new PageStore(kv, () => Date.now());
    const heading = (i: number) => `${i} → ${"w".repeat(195)}`;
    const body = "Text of the page.";
    // As many as the admin API accepts (200 headings, 1,000 sections), each as long as it allows.
    assert.equal(
      await pages.upsert("s", {
        url: "/h",
        title: "T→".repeat(250),
        body,
        headings: Array.from({ length: 200 }, (_, i) => heading(i)),
      }, 10),
      "created",
    );
    const sections = Array.from(
      { length: 1000 },
      (_, i) => ({ heading: heading(i), anchor: `a-${i}-${"x".repeat(190)}` }),
    );
    assert.equal(await pages.upsert("s", { url: "/s", title: "S", body, sections }, 10), "created");
    const h = (await pages.meta("s", "/h"))!;
    const s = (await pages.meta("s", "/s"))!;
    assert.ok(h.headings!.length > 20 && h.headings!.length < 200, String(h.headings!.length));
    assert.ok(s.sections!.length > 20 && s.sections!.length < 1000, String(s.sections!.length));
    assert.deepEqual(s.sections!.slice(0, 3), sections.slice(0, 3), "the first ones, in order");
  } finally {
    kv.close();
  }
});

Deno.test("kv limits - many writes are batched in slices: the same batches, the event loop turning between", async () => {
  const writes: [Deno.KvKey, unknown][] = Array.from({ length: 30_000 }, (_, i) => [
    ["crawlitems", "site_a", "job_b", "skipped", i],
    { url: `https://other${i}.test/${"p".repeat(80)}`, reason: "off_site" },
  ]);
  const room = { mutations: 2, keyBytes: 200, bytes: 4_000 };
  let turns = 0;
  const tick = setInterval(() => turns++, 0);
  const sliced = await commitBatchesInSlices(writes, room);
  clearInterval(tick);
  assert.deepEqual(sliced, commitBatches(writes, room));
  assert.ok(sliced.length > 30, `${sliced.length} batches`);
  assert.ok(turns >= 3, `the event loop turned ${turns} times`);
  // A write over a limit is refused before any batch is made, as in one piece.
  const tooLarge: [Deno.KvKey, unknown][] = [...writes, [["k"], "x".repeat(70_000)]];
  await assert.rejects(commitBatchesInSlices(tooLarge), KvLimitError);
});
