/**
 * Long synchronous work cut into slices: between two, the event loop runs what waits (the
 * searches queued behind an AI answer's retrieval, which took up to 20 ms in one piece).
 */
export class Slices {
  #since = performance.now();
  constructor(private readonly ms = 3) {}

  /** Lets the event loop run once the current slice has taken `ms`. */
  async pause(): Promise<void> {
    if (performance.now() - this.#since < this.ms) return;
    // A timer, not a message: only a timer lets the runtime poll sockets on the next turn
    // (after a message, a waiting request was answered ~60 turns later). It costs ~1 ms idle.
    await new Promise((r) => setTimeout(r, 0));
    this.#since = performance.now();
  }
}
