/** Politeness per host: at most `concurrency` requests in flight, starts spaced `delay` apart. */
import { normalizeHost } from "./net/guard.ts";

/** "host:port" with the scheme's default port filled in: what politeness is counted per. */
export function hostKey(u: URL): string {
  const port = u.port || (u.protocol === "https:" ? "443" : "80");
  return `${normalizeHost(u.hostname)}:${port}`;
}

/** Bounded, spaced access per host: at most `concurrency` in flight, starts `delay` apart. */
export class HostLimiter {
  #hosts = new Map<
    string,
    { active: number; next: number; delay: number; waiting: (() => void)[] }
  >();
  constructor(private concurrency: number, private delayMs: number) {}

  #host(key: string) {
    let h = this.#hosts.get(key);
    if (!h) this.#hosts.set(key, h = { active: 0, next: 0, delay: this.delayMs, waiting: [] });
    return h;
  }

  /** Sets a host's spacing (robots.txt Crawl-delay). */
  setDelay(key: string, ms: number) {
    this.#host(key).delay = ms;
  }

  /** Waits for a slot and the host's next start time; resolves to the release function. */
  async acquire(key: string, signal?: AbortSignal): Promise<() => void> {
    const h = this.#host(key);
    while (h.active >= this.concurrency) {
      await new Promise<void>((r) => h.waiting.push(r));
      signal?.throwIfAborted();
    }
    h.active++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      h.active--;
      h.waiting.shift()?.();
    };
    const now = Date.now();
    const at = Math.max(now, h.next);
    h.next = at + h.delay;
    if (at > now) {
      try {
        await sleep(at - now, signal);
      } catch (err) {
        release();
        throw err;
      }
    }
    return release;
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", stop);
      resolve();
    }
    function stop() {
      clearTimeout(t);
      reject(signal!.reason);
    }
    signal?.addEventListener("abort", stop, { once: true });
  });
}
