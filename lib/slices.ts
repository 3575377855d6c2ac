/**
 * One turn of the event loop for what waits. A timer, not a message: only a timer lets the
 * runtime poll sockets on the next turn (after a message, a waiting request was answered ~60
 * turns later). It costs ~1 ms idle.
 */
export const nextTurn = () => new Promise<void>((r) => setTimeout(r, 0));

/**
 * Long synchronous work cut into slices: between two, the event loop runs what waits (the
 * searches queued behind an AI answer's retrieval, which took up to 20 ms in one piece; a
 * search behind an index's pass, its read-ahead or the process's warm-up).
 */
export class Slices {
  #since = performance.now();
  constructor(private readonly ms = 3) {}

  /** Lets the event loop run once the current slice has taken `ms`. */
  async pause(): Promise<void> {
    if (performance.now() - this.#since < this.ms) return;
    await nextTurn();
    this.#since = performance.now();
  }
}

/**
 * Runs `steps` in slices of `ms` while `go` says, the first at once, calling `sliced` after
 * each; whether they ran out. Between two slices the event loop runs what waits (nextTurn).
 */
export async function inTimeSlices(
  steps: Iterator<unknown>,
  go: () => boolean,
  sliced = () => {},
  ms = 5,
): Promise<boolean> {
  while (go()) {
    const until = performance.now() + ms;
    let done: boolean;
    while (!(done = !!steps.next().done) && performance.now() < until);
    sliced();
    if (done) return true;
    await nextTurn();
  }
  return false;
}
