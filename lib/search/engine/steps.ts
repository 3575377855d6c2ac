/**
 * Work cut into steps: a generator that yields between pieces of a long synchronous job, so
 * the host can let its event loop run between them (lib/slices.ts `inTimeSlices`), or run it
 * to its end at once where nothing waits.
 */

/** Bytes `copying` copies between two yields. */
const COPY_STEP_BYTES = 1 << 20;

/** Copies `from` into `into` at `at` a megabyte at a time, yielding after each. */
export function* copying(into: Uint8Array, from: Uint8Array, at: number): Generator<void> {
  for (let i = 0; i < from.length; i += COPY_STEP_BYTES) {
    into.set(from.subarray(i, Math.min(from.length, i + COPY_STEP_BYTES)), at + i);
    yield;
  }
}

/** Runs `steps` to the end at once; what they return. */
export function runSteps<T>(steps: Generator<void, T>): T {
  let r = steps.next();
  while (!r.done) r = steps.next();
  return r.value;
}
