/**
 * When work stands aside (lib/search/activity.ts): background work for a search or a request on
 * its way, alike; a request's own work only for searches, never for its own arrival.
 */
import assert from "node:assert/strict";
import {
  noteArrival,
  noteSearch,
  quiet,
  quietSpell,
  searchesPaused,
} from "../../lib/search/activity.ts";

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test("activity - a request on its way holds back background work as a search does; a request's own work looks at searches only", async () => {
  await wait(60);
  assert.ok(quiet(50) && searchesPaused(50), "nothing came for 60 ms");

  noteArrival();
  assert.equal(quiet(50), false, "background work waits for the arrival");
  assert.equal(
    searchesPaused(50),
    true,
    "an upsert's compaction is not held back by its own arrival",
  );

  const started = performance.now();
  await quietSpell(50);
  assert.ok(performance.now() - started >= 45, "quiet again once nothing arrived for 50 ms");
  assert.ok(quiet(50));

  noteSearch();
  assert.equal(quiet(50), false);
  assert.equal(searchesPaused(50), false, "a search holds back both");
});
