/**
 * A crawl's work: page and sitemap tasks run by a fixed number of workers until none
 * is left or one throws. A page waiting for a free page slot is set aside meanwhile.
 */

/** A page (with its sitemap lastmod, ms, when listed with one) or a sitemap to read. */
export type CrawlTask =
  | { kind: "page"; url: URL; lastmod?: number }
  | { kind: "sitemap"; url: URL; depth: number };

export class CrawlQueue {
  private queue: CrawlTask[] = [];
  private deferred: CrawlTask[] = [];
  private active = 0;
  /** The first error a task threw; no task starts after it. */
  error: unknown = null;
  private wake: () => void = () => {};

  /** `onPush` hears of every new task (the crawl's checkpoint). */
  constructor(private workers: number, private onPush?: (task: CrawlTask) => void) {}

  /** Tasks not started yet, waiting or set aside. */
  get pending(): number {
    return this.queue.length + this.deferred.length;
  }

  /** Adds a task; once draining, a free worker takes it at once. */
  push(task: CrawlTask) {
    this.onPush?.(task);
    this.queue.push(task);
    this.wake();
  }

  /** Sets a task aside until retryDeferred. */
  defer(task: CrawlTask) {
    this.deferred.push(task);
  }

  /** Puts the tasks set aside back in front; the worker finishing now wakes the queue. */
  retryDeferred() {
    if (this.deferred.length) this.queue.unshift(...this.deferred.splice(0));
  }

  /** Puts back a task from a saved checkpoint, without reporting it again. */
  restore(task: CrawlTask) {
    this.queue.push(task);
  }

  /**
   * Runs queued tasks on `workers` workers until none is left or one throws, or, once
   * `stop()` says so, until the tasks running end (the rest stay queued).
   */
  drain(run: (task: CrawlTask) => Promise<void>, stop: () => boolean = () => false): Promise<void> {
    return new Promise((resolve) => {
      this.wake = () => {
        while (!this.error && this.active < this.workers && this.queue.length && !stop()) {
          const task = this.queue.shift()!;
          this.active++;
          run(task)
            .catch((err) => void (this.error ??= err))
            .finally(() => {
              this.active--;
              this.wake();
            });
        }
        if (this.active === 0 && (this.error || this.queue.length === 0 || stop())) resolve();
      };
      this.wake();
    });
  }
}
