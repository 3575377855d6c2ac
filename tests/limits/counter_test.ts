import assert from "node:assert/strict";
import { stepCounter } from "../../lib/limits/counter.ts";

const step = { busyMessage: "busy" };

Deno.test("kv counter - takes up to the limit under concurrency, and gives back never below zero", async () => {
  const kv = await Deno.openKv(":memory:");
  const key = ["c"];
  const taken = await Promise.all(
    Array.from({ length: 40 }, () => stepCounter(kv, key, { ...step, by: 1, limit: 7 })),
  );
  assert.equal(taken.filter((x) => x !== null).length, 7);
  assert.deepEqual(taken.filter((x) => x !== null).sort((a, b) => a! - b!), [1, 2, 3, 4, 5, 6, 7]);
  assert.equal((await kv.get<number>(key)).value, 7);
  assert.equal(await stepCounter(kv, key, { ...step, by: -1 }), 6);
  assert.equal(await stepCounter(kv, ["empty"], { ...step, by: -1 }), 0);
  assert.equal((await kv.get(["empty"])).versionstamp, null, "nothing written for a no-op");
  assert.equal(await stepCounter(kv, ["free"], { ...step, by: 1, limit: null }), 1);
  kv.close();
});

Deno.test("kv counter - two processes' handles on one file still count exactly", async () => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  const [a, b] = [await Deno.openKv(path), await Deno.openKv(path)];
  const taken = await Promise.all(
    Array.from(
      { length: 60 },
      (_, i) => stepCounter(i % 2 ? a : b, ["c"], { ...step, by: 1, limit: 25 }),
    ),
  );
  assert.equal(taken.filter((x) => x !== null).length, 25);
  a.close();
  b.close();
  await Deno.remove(path);
});
