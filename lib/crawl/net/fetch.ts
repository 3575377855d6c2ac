/**
 * The crawler's only way out to the network. Every hop (first request and each
 * redirect) passes checkUrl, and the connection then goes to exactly the address
 * that was checked: a socket opened to that address, HTTP/1.1 written on it in origin
 * form (and TLS started on it for HTTPS, with the URL's host name for SNI and
 * certificate checks; see http1.ts). So a DNS answer that changes between check and
 * connect (rebinding) cannot reach an internal address, no system resolver is asked,
 * and proxy variables in the environment are never used. Bodies are capped after
 * decompression; connect+headers and the body each have a deadline; requests to one
 * host are spaced and bounded.
 */
import { hostKey, HostLimiter } from "../limiter.ts";
import { type CheckOptions, checkUrl } from "./guard.ts";
import { http1Get } from "./http1.ts";

export type FetchResult =
  | { ok: true; url: string; status: number; headers: Headers; body: Uint8Array }
  | { ok: false; url: string; reason: string };

export interface FetchLimits {
  maxBytes: number;
  maxRedirects: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
}

export const DEFAULT_LIMITS: FetchLimits = {
  maxBytes: 5 * 1024 * 1024,
  maxRedirects: 5,
  headersTimeoutMs: 10_000,
  bodyTimeoutMs: 30_000,
};

export interface GuardedInit extends Partial<Omit<FetchLimits, "maxBytes">> {
  /** A number, or one chosen from the final response (sitemaps may be larger than pages). */
  maxBytes?: number | ((res: Response) => number);
  /** Keep the first `maxBytes` of a longer body instead of refusing it (robots.txt). */
  truncate?: boolean;
  headers?: Record<string, string>;
  /** Sent on the first hop only: validators belong to the URL they were stored for. */
  conditional?: Record<string, string>;
  /** Asked before following a redirect; a reason refuses the hop. */
  beforeHop?: (url: URL) => string | null | Promise<string | null>;
  /** Asked of a 2xx response before its body is read; a reason refuses the body. */
  accept?: (res: Response) => string | null;
  signal?: AbortSignal;
}

export interface FetcherOptions extends CheckOptions {
  userAgent: string;
  /** Requests in flight at once per host. */
  concurrency: number;
  /** Default spacing between request starts to one host. */
  delayMs: number;
  /** Extra trusted roots (tests' own CA). */
  caCerts?: string[];
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const EMPTY = new Uint8Array();

/** One crawl's network access: pinned connections and the per-host limiter. */
export class GuardedFetcher {
  readonly limiter: HostLimiter;

  constructor(private opts: FetcherOptions) {
    this.limiter = new HostLimiter(opts.concurrency, opts.delayMs);
  }

  /** GET with every hop checked; redirects followed by hand, at most `maxRedirects`. */
  async fetch(url: string, init: GuardedInit = {}): Promise<FetchResult> {
    const lim = {
      maxBytes: init.maxBytes ?? DEFAULT_LIMITS.maxBytes,
      maxRedirects: init.maxRedirects ?? DEFAULT_LIMITS.maxRedirects,
      headersTimeoutMs: init.headersTimeoutMs ?? DEFAULT_LIMITS.headersTimeoutMs,
      bodyTimeoutMs: init.bodyTimeoutMs ?? DEFAULT_LIMITS.bodyTimeoutMs,
    };
    let current = url;
    for (let hop = 0;; hop++) {
      const checked = await checkUrl(current, this.opts);
      if (!checked.ok) {
        const reason = checked.reason === "dns_error"
          ? "fetch_error"
          : checked.reason === "invalid_url"
          ? "invalid_url"
          : "blocked_address";
        return { ok: false, url: current, reason };
      }
      const target = checked.url;
      target.hash = "";
      // Safety first, then the caller's policy (other site, robots.txt) for redirect targets.
      const refused = hop > 0 ? await init.beforeHop?.(target) : null;
      if (refused) return { ok: false, url: target.href, reason: refused };
      const release = await this.limiter.acquire(hostKey(target), init.signal);
      let outcome: FetchResult | { next: URL };
      try {
        outcome = await this.#hop(target, checked.addresses, hop === 0, init, lim);
      } finally {
        release();
      }
      if ("ok" in outcome) return outcome;
      if (hop + 1 > lim.maxRedirects) return { ok: false, url, reason: "redirect_limit" };
      current = outcome.next.href;
    }
  }

  /** One request to a checked URL: a result, or the redirect target to check next. */
  async #hop(
    target: URL,
    addresses: string[],
    first: boolean,
    init: GuardedInit,
    lim: Omit<FetchLimits, "maxBytes"> & { maxBytes: number | ((res: Response) => number) },
  ): Promise<FetchResult | { next: URL }> {
    const timer = new AbortController();
    const signal = init.signal ? AbortSignal.any([timer.signal, init.signal]) : timer.signal;
    let deadline = setTimeout(() => timer.abort("timeout"), lim.headersTimeoutMs);
    const fail = (reason: string): FetchResult => ({ ok: false, url: target.href, reason });
    const failure = (): FetchResult => {
      init.signal?.throwIfAborted();
      return fail(timer.signal.aborted ? "timeout" : "fetch_error");
    };
    try {
      let res: Response;
      try {
        res = await http1Get({
          url: target,
          ip: addresses[0],
          signal,
          caCerts: this.opts.caCerts,
          headers: {
            "User-Agent": this.opts.userAgent,
            ...init.headers,
            ...(first ? init.conditional : undefined),
          },
        });
      } catch {
        return failure();
      }
      clearTimeout(deadline);
      const location = res.headers.get("location");
      if (REDIRECTS.has(res.status) && location !== null) {
        await res.body?.cancel().catch(() => {});
        const next = URL.parse(location.trim(), target);
        if (!next) return fail("invalid_url");
        next.hash = "";
        return { next };
      }
      const done = (body: Uint8Array): FetchResult => ({
        ok: true,
        url: target.href,
        status: res.status,
        headers: res.headers,
        body,
      });
      if (res.status < 200 || res.status >= 300) {
        await res.body?.cancel().catch(() => {});
        return done(EMPTY);
      }
      const refused = init.accept?.(res);
      if (refused) {
        await res.body?.cancel().catch(() => {});
        return fail(refused);
      }
      const max = typeof lim.maxBytes === "function" ? lim.maxBytes(res) : lim.maxBytes;
      // Content-Length counts encoded bytes; it only says something when nothing is encoded.
      const declared = Number(res.headers.get("content-length"));
      if (!init.truncate && !res.headers.has("content-encoding") && declared > max) {
        await res.body?.cancel().catch(() => {});
        return fail("too_large");
      }
      deadline = setTimeout(() => timer.abort("timeout"), lim.bodyTimeoutMs);
      try {
        const body = await readCapped(res.body, max, init.truncate);
        return body ? done(body) : fail("too_large");
      } catch {
        return failure();
      }
    } finally {
      clearTimeout(deadline);
    }
  }

  /** Nothing to release: each request's socket closes with its body. */
  async close() {}
}

/** Reads a body to its end; null as soon as it passes `max` bytes (then stops inflating), or its head when truncating. */
async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  max: number,
  truncate = false,
): Promise<Uint8Array | null> {
  if (!body) return EMPTY;
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const part of body) {
    if (size + part.byteLength > max) {
      if (!truncate) return null; // leaving the loop cancels the stream
      parts.push(part.subarray(0, max - size));
      size = max;
      break;
    }
    size += part.byteLength;
    parts.push(part);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) out.set(p, (at += p.byteLength) - p.byteLength);
  return out;
}
