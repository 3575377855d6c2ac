/**
 * The system clocks are read once per run of synchronous code (lib/clock.ts): reads in one run
 * agree however long it takes, and a read after any await, a timer or the microtasks queued
 * before it reads the clock anew.
 */
import assert from "node:assert/strict";
import { steadyClock, systemClock } from "../../lib/clock.ts";

/** Spins until `ms` have passed on the real clock. */
function spin(ms: number) {
  const end = performance.now() + ms;
  while (performance.now() < end) { /* time passes within one run */ }
}

Deno.test("clock - reads in one run of code agree; the next run reads anew", async () => {
  await new Promise((r) => setTimeout(r, 0)); // a run of its own, as a request's is
  // The run's first read is the wall clock's time then (a busy machine may stall any spin).
  const readFrom = Date.now();
  const wall = systemClock(), steady = steadyClock();
  const readTo = Date.now();
  assert.ok(readFrom <= wall && wall <= readTo, "it is the wall clock's time");
  spin(5);
  assert.equal(systemClock(), wall, "the same run: the same wall time");
  assert.equal(steadyClock(), steady, "the same run: the same monotonic time");

  await Promise.resolve(); // a microtask queued after the first read: a new run
  assert.ok(systemClock() >= wall + 5, "after an await the wall clock moved on");
  assert.ok(steadyClock() >= steady + 5, "after an await the monotonic clock moved on");

  const before = steadyClock();
  await new Promise((r) => setTimeout(r, 5));
  assert.ok(steadyClock() >= before + 4, "after a timer too");
});

Deno.test("clock - a run that reads only one clock still reads the other anew after it", async () => {
  await new Promise((r) => setTimeout(r, 0));
  const steady = steadyClock();
  spin(3);
  await Promise.resolve();
  const wall = systemClock();
  spin(3);
  assert.equal(systemClock(), wall);
  assert.ok(steadyClock() >= steady + 3, "the monotonic clock was forgotten with the run");
});
