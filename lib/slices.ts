/**
 * Long synchronous work cut into slices: between two, the event loop runs what waits (the
 * searches queued behind an AI answer's retrieval, which took up to 20 ms in one piece; a
 * search behind an index's build, its pass, its read-ahead or the process's warm-up; a request
 * behind a large JSON body). The one home of how long a slice runs.
 */

/** How long each kind of work runs before the event loop gets a turn, in ms. */
export const SLICE_MS = {
  /** An answer's retrieval, on the path of a visitor who waits for its first words. */
  answering: 3,
  /** Work read off the search path (an index's pass, read-ahead, warm-up). */
  background: 5,
  /** Indexing pages and parsing large bodies: throughput counts, a turn costs ~1 ms idle. */
  bulk: 8,
} as const;

/**
 * One turn of the event loop for what waits. A timer, not a message: only a timer lets the
 * runtime poll sockets on the next turn (after a message, a waiting request was answered ~60
 * turns later). It costs ~1 ms idle.
 */
export const nextTurn = () => new Promise<void>((r) => setTimeout(r, 0));

/** A clock of slices: `pause()` lets the event loop run once the current slice has taken `ms`. */
export class Slices {
  #since = performance.now();
  constructor(private readonly ms: number) {}

  /** Whether the current slice has taken its time. */
  get spent(): boolean {
    return performance.now() - this.#since >= this.ms;
  }

  /** Lets the event loop run once the current slice has taken `ms`. */
  async pause(): Promise<void> {
    if (!this.spent) return;
    await nextTurn();
    this.#since = performance.now();
  }
}

/**
 * Runs `steps` (a generator that yields between pieces of a long job) to its end, letting the
 * event loop run whenever a slice has taken `ms`; what it returns.
 */
export async function drainInSlices<T>(
  steps: Generator<void, T>,
  ms: number = SLICE_MS.bulk,
): Promise<T> {
  const slices = new Slices(ms);
  for (let step = steps.next();; step = steps.next()) {
    if (step.done) return step.value;
    await slices.pause();
  }
}

/** Runs `steps` to its end at once, where nothing waits; what it returns. */
export function drain<T>(steps: Generator<void, T>): T {
  for (let step = steps.next();; step = steps.next()) if (step.done) return step.value;
}

/** Runs `step` on each item, pausing whenever a slice has run `ms`. */
export async function inSlices<T>(
  items: Iterable<T> | AsyncIterable<T>,
  step: (item: T) => void,
  ms: number = SLICE_MS.bulk,
): Promise<void> {
  const slices = new Slices(ms);
  for await (const item of items) {
    step(item);
    await slices.pause();
  }
}

/**
 * Runs `steps` in slices of `ms` while `go` says, the first at once, calling `sliced` after
 * each; whether they ran out.
 */
export async function inTimeSlices(
  steps: Iterator<unknown>,
  go: () => boolean,
  sliced = () => {},
  ms: number = SLICE_MS.background,
): Promise<boolean> {
  while (go()) {
    const slices = new Slices(ms);
    let done: boolean;
    while (!(done = !!steps.next().done) && !slices.spent);
    sliced();
    if (done) return true;
    await nextTurn();
  }
  return false;
}

/** Bytes a text decode takes at a time: ~3-6 ms each. */
const DECODE_SLICE = 1 << 20;

/**
 * `bytes` decoded as text a slice at a time, the event loop running between slices: a
 * 50 MB body decoded in one call held it for 130-290 ms. A decoder that is `fatal` throws as
 * it would in one call.
 */
export async function decodeInSlices(bytes: Uint8Array, decoder: TextDecoder): Promise<string> {
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += DECODE_SLICE) {
    parts.push(decoder.decode(bytes.subarray(i, i + DECODE_SLICE), { stream: true }));
    if (i + DECODE_SLICE < bytes.length) await nextTurn();
  }
  parts.push(decoder.decode());
  return parts.join("");
}
