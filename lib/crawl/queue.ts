/**
 * A crawl's work: page and sitemap tasks run by a fixed number of workers until none
 * is left or one throws. A page waiting for a free page slot is set aside meanwhile.
 */

export type CrawlTask = { kind: "page"; url: URL } | { kind: "sitemap"; url: URL; depth: number };

export class CrawlQueue {
  private queue: CrawlTask[] = [];
  private deferred: CrawlTask[] = [];
  private active = 0;
  /** The first error a task threw; no task starts after it. */
  error: unknown = null;
  private wake: () => void = () => {};

  constructor(private workers: number) {}

  /** Adds a task; once draining, a free worker takes it at once. */
  push(task: CrawlTask) {
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

  /** Runs queued tasks on `workers` workers until none is left or one throws. */
  drain(run: (task: CrawlTask) => Promise<void>): Promise<void> {
    return new Promise((resolve) => {
      this.wake = () => {
        while (!this.error && this.active < this.workers && this.queue.length) {
          const task = this.queue.shift()!;
          this.active++;
          run(task)
            .catch((err) => void (this.error ??= err))
            .finally(() => {
              this.active--;
              this.wake();
            });
        }
        if (this.active === 0 && (this.error || this.queue.length === 0)) resolve();
      };
      this.wake();
    });
  }
}
