/**
 * An instance stopping (SIGINT or SIGTERM; Deno Deploy sends SIGKILL 5 s after SIGINT): work
 * in flight that a client waits on, such as an answer stream, is tracked here, given a moment
 * to finish, then told to end cleanly now; the instance waits for it before it exits.
 */
export class Shutdown {
  #ctl = new AbortController();
  #open = new Set<Promise<unknown>>();

  /** Aborts when work in flight must end now (with a retry-able error, never a cut). */
  get signal(): AbortSignal {
    return this.#ctl.signal;
  }

  /** Counts `work` as in flight until it settles; answers it. */
  track<T>(work: Promise<T>): Promise<T> {
    this.#open.add(work);
    const forget = () => this.#open.delete(work);
    work.then(forget, forget);
    return work;
  }

  /** Work in flight now. */
  get open(): number {
    return this.#open.size;
  }

  /**
   * Waits up to `graceMs` for the work in flight to finish by itself, then aborts `signal`
   * and waits up to `endMs` more for what was left to end.
   */
  async drain(graceMs: number, endMs: number): Promise<void> {
    await this.#settled(graceMs);
    this.#ctl.abort();
    await this.#settled(endMs);
  }

  async #settled(ms: number) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise((r) => timer = setTimeout(r, ms));
    await Promise.race([Promise.allSettled([...this.#open]), late]);
    clearTimeout(timer);
  }
}
