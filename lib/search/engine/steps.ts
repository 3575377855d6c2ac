/**
 * Work cut into steps: a generator that yields between pieces of a long synchronous job, so
 * the host can let its event loop run between them (lib/slices.ts `inTimeSlices`), or run it
 * to its end at once where nothing waits.
 */

/** Runs `steps` to the end at once; what they return. */
export function runSteps<T>(steps: Generator<void, T>): T {
  let r = steps.next();
  while (!r.done) r = steps.next();
  return r.value;
}
