/** The one KV retry loop: lost races and a locked file are retried, a failing store is a 503. */
import assert from "node:assert/strict";
import { DomainError } from "../../lib/errors.ts";
import { errorHeaders } from "../../lib/http/errors.ts";
import {
  KV_ATTEMPTS,
  LOST_RACE,
  openResilientKv,
  READ_PROBE_MS,
  retryKv,
} from "../../lib/storage/kv_retry.ts";

Deno.test("kv retry - a lost race and a locked file are tried again until the step succeeds", async () => {
  let calls = 0, lost = 0;
  const out = await retryKv(
    () => {
      calls++;
      if (calls <= 3) return Promise.resolve(LOST_RACE);
      if (calls <= 5) return Promise.reject(new Error("database is locked"));
      return Promise.resolve(null); // null is a value like any other
    },
    "busy",
    () => lost++,
  );
  assert.equal(out, null);
  assert.deepEqual([calls, lost], [6, 3]);
});

Deno.test("kv retry - after KV_ATTEMPTS lost races the answer is 503 with Retry-After and the message", async () => {
  let calls = 0;
  const err = await retryKv(() => (calls++, Promise.resolve(LOST_RACE)), "Too busy. Retry.")
    .catch((e) => e);
  assert.ok(err instanceof DomainError);
  assert.equal(err.code, "SERVICE_UNAVAILABLE");
  assert.equal(err.message, "Too busy. Retry.");
  assert.equal(errorHeaders(err)["Retry-After"], "1");
  assert.equal(calls, KV_ATTEMPTS);
});

Deno.test("kv retry - a failing store is a 503 at once; other errors and DomainErrors pass through untouched", async () => {
  let calls = 0;
  const disk = await retryKv(() => (calls++, Promise.reject(new Error("disk I/O error"))), "x")
    .catch((e) => e);
  assert.equal(disk.code, "SERVICE_UNAVAILABLE");
  assert.equal(disk.details.retryAfter, 5);
  assert.equal(calls, 1);
  const bug = new TypeError("not a KV problem");
  assert.equal(await retryKv(() => Promise.reject(bug), "x").catch((e) => e), bug);
  const notFound = new DomainError("NOT_FOUND", "gone");
  assert.equal(await retryKv(() => Promise.reject(notFound), "x").catch((e) => e), notFound);
});

Deno.test("kv retry - reads close together share one probe of the file; a read later and every write probe again", async () => {
  const dir = await Deno.makeTempDir();
  const probed: string[] = [];
  const kv = await openResilientKv(`${dir}/probe.kv`, {
    writable: (path) => () => (probed.push(path.slice(dir.length + 1)), true),
  });
  const files = ["probe.kv", "probe.kv-wal", "probe.kv-shm"];
  await kv.set(["a"], 1);
  assert.deepEqual(probed.splice(0), [...files, ...files], "a write: before and after");
  // A search's reads come together: one probe for all of them.
  const values = await Promise.all([kv.get(["a"]), kv.getMany([["a"], ["b"]]), kv.get(["b"])]);
  assert.deepEqual(values.map((v) => Array.isArray(v) ? v.length : v.value), [1, 2, null]);
  assert.ok(probed.splice(0).length <= files.length, "at most one probe");
  await new Promise((r) => setTimeout(r, READ_PROBE_MS + 5));
  await kv.get(["a"]);
  assert.deepEqual(probed.splice(0), files, "probed again once the last probe is old");
  await kv.set(["b"], 2);
  assert.deepEqual(probed.splice(0), [...files, ...files], "every write, however close");
  kv.close();
  await Deno.remove(dir, { recursive: true });
});
