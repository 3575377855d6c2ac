/**
 * The crawler's only way out to the network. Every hop (first request and each
 * redirect) passes checkUrl, and the connection then goes to exactly the address
 * that was checked: plain HTTP through a client whose TCP transport is pinned to
 * it, HTTPS through a CONNECT relay on loopback that dials it (TLS stays end to
 * end, with the URL's host name for SNI and certificate checks). So a DNS answer
 * that changes between check and connect (rebinding) cannot reach an internal
 * address, no system resolver is asked, and proxy variables in the environment
 * are never used. Bodies are capped after decompression; connect+headers and the
 * body each have a deadline; requests to one host are spaced and bounded.
 */
import { type CheckOptions, checkUrl, normalizeHost } from "./net_guard.ts";
import { randomBase62 } from "./keys.ts";

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

/** One crawl's network access: pinned clients, the HTTPS relay, the per-host limiter. */
export class GuardedFetcher {
  readonly limiter: HostLimiter;
  #clients = new Map<string, Deno.HttpClient>();
  #relay: ConnectRelay | null = null;

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
        res = await fetch(target.href, {
          redirect: "manual",
          client: this.#client(target, addresses[0]),
          signal,
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

  /** A client whose connections go to `ip` only, whatever the URL's host name resolves to now. */
  #client(u: URL, ip: string): Deno.HttpClient {
    const port = Number(u.port || (u.protocol === "https:" ? 443 : 80));
    const key = `${u.protocol}${ip}|${port}`;
    let client = this.#clients.get(key);
    if (client) return client;
    if (u.protocol === "http:") {
      // The transport takes a URI authority: an IPv6 address goes in brackets.
      const hostname = ip.includes(":") ? `[${ip}]` : ip;
      client = Deno.createHttpClient({ proxy: { transport: "tcp", hostname, port } });
    } else {
      this.#relay ??= new ConnectRelay();
      client = Deno.createHttpClient({
        proxy: {
          url: `http://127.0.0.1:${this.#relay.port}`,
          basicAuth: { username: this.#relay.pin(ip, port), password: "pinned" },
        },
        caCerts: this.opts.caCerts,
      });
    }
    this.#clients.set(key, client);
    return client;
  }

  /** Closes every connection this fetcher opened. */
  async close() {
    for (const c of this.#clients.values()) c.close();
    this.#clients.clear();
    await this.#relay?.close();
    this.#relay = null;
  }
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

/**
 * A CONNECT proxy on loopback that dials only addresses pinned by this process.
 * The pin id travels as the proxy user name; unknown ids and other ports are refused,
 * so nothing else on the machine can use the relay to reach anything.
 */
class ConnectRelay {
  #listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  #pins = new Map<string, { ip: string; port: number }>();
  #conns = new Set<Deno.Conn>();
  #tasks = new Set<Promise<void>>();
  #serving: Promise<void>;
  readonly port = this.#listener.addr.port;

  constructor() {
    this.#serving = this.#serve();
  }

  pin(ip: string, port: number): string {
    const id = randomBase62(24);
    this.#pins.set(id, { ip, port });
    return id;
  }

  async #serve() {
    try {
      for await (const conn of this.#listener) {
        this.#conns.add(conn);
        const task = this.#handle(conn).catch(() => {}).finally(() => {
          this.#conns.delete(conn);
          this.#tasks.delete(task);
          try {
            conn.close();
          } catch { /* already closed */ }
        });
        this.#tasks.add(task);
      }
    } catch { /* listener closed */ }
  }

  async #handle(conn: Deno.Conn) {
    const head = await readHead(conn);
    const m = head && /^CONNECT \[?([^\s\]]+)\]?:(\d+) HTTP\/1\.[01]\r\n/.exec(head.text);
    const auth = head &&
      /\r\nproxy-authorization:\s*basic\s+([A-Za-z0-9+/=]+)\r\n/i.exec(head.text);
    let pin: { ip: string; port: number } | undefined;
    try {
      pin = auth ? this.#pins.get(atob(auth[1]).split(":")[0]) : undefined;
    } catch { /* bad base64 */ }
    if (!m || !pin || Number(m[2]) !== pin.port) {
      await conn.write(new TextEncoder().encode("HTTP/1.1 403 Forbidden\r\n\r\n"));
      return;
    }
    const upstream = await Deno.connect({
      hostname: pin.ip,
      port: pin.port,
      signal: AbortSignal.timeout(DEFAULT_LIMITS.headersTimeoutMs),
    }).catch(() => null);
    if (!upstream) {
      await conn.write(new TextEncoder().encode("HTTP/1.1 502 Bad Gateway\r\n\r\n"));
      return;
    }
    this.#conns.add(upstream);
    try {
      await conn.write(new TextEncoder().encode("HTTP/1.1 200 Connection Established\r\n\r\n"));
      if (head.rest.byteLength) await upstream.write(head.rest);
      await Promise.race([
        conn.readable.pipeTo(upstream.writable).catch(() => {}),
        upstream.readable.pipeTo(conn.writable).catch(() => {}),
      ]);
    } finally {
      this.#conns.delete(upstream);
      try {
        upstream.close();
      } catch { /* already closed */ }
    }
  }

  async close() {
    this.#listener.close();
    for (const c of this.#conns) {
      try {
        c.close();
      } catch { /* already closed */ }
    }
    await this.#serving;
    await Promise.all(this.#tasks);
  }
}

/** Reads a request head (at most 8 KiB) and whatever bytes came after it. */
async function readHead(conn: Deno.Conn): Promise<{ text: string; rest: Uint8Array } | null> {
  const buf = new Uint8Array(8192);
  let len = 0;
  while (len < buf.length) {
    const n = await conn.read(buf.subarray(len));
    if (n === null) return null;
    len += n;
    const text = new TextDecoder("latin1").decode(buf.subarray(0, len));
    const end = text.indexOf("\r\n\r\n");
    if (end >= 0) return { text: text.slice(0, end + 2), rest: buf.slice(end + 4, len) };
  }
  return null;
}
