/**
 * HTTP/1.1 on Deno.listen, for what Deno.serve does not let us bound: requests parsed by
 * RFC 9112's grammar (head.ts, body.ts), a cap on open connections shared fairly between client
 * addresses (conns.ts), a deadline for a request's head (idle keep-alive included) and one for
 * its body, bodies handed over as they arrive, and an accept loop that outlives running out of
 * file descriptors. It imports nothing from the app: refusals are worded by `errorBody`, and an
 * app's hot GET can be answered by `early` from the parsed head, before any Request is made.
 */
import { Wire } from "../wire.ts";
import { systemClock } from "../../clock.ts";
import { type Head, type HeadLimits, parseHead, readHead } from "./head.ts";
import { bodyStream } from "./body.ts";
import { Connections, type FrontStats, peerKey, type Slot } from "./conns.ts";
import { BodyError, Refusal } from "./refusal.ts";
import { closingResponse, type EarlyAnswer, writeAll, writeEarly, writeResponse } from "./write.ts";

export { knownBodies, REASONS } from "./write.ts";
export type { EarlyAnswer } from "./write.ts";
export { BodyError } from "./refusal.ts";
export type { FrontStats } from "./conns.ts";

/** One structured log line. */
export type ServerLog = (line: Record<string, unknown>) => void;

/** The body and headers of a response the server makes itself, for `status` and `message`. */
export type ErrorBody = (
  status: number,
  message: string,
) => { body: string; headers: Record<string, string> };

export interface ServeOptions {
  hostname: string;
  port: number;
  /** Open connections at most (env MAX_CONNECTIONS). */
  maxConnections?: number;
  /** Open connections of one client address at most (env MAX_CONNECTIONS_PER_IP). */
  maxConnectionsPerIp?: number;
  /**
   * Addresses that speak for many clients (trusted proxies): their connections count only
   * against `maxConnections`, each as an address of its own.
   */
  sharedAddress?: (address: string) => boolean;
  /** From waiting for a request to having its whole head (env HTTP_HEADER_TIMEOUT_MS). */
  headerTimeoutMs?: number;
  /** From the head to the body's last byte (env HTTP_BODY_TIMEOUT_MS). */
  bodyTimeoutMs?: number;
  /** The largest body any route takes; more is refused before it is read. */
  maxBodyBytes?: number;
  maxHeaderBytes?: number;
  /** A longer request-line is answered 414. */
  maxRequestLineBytes?: number;
  /** Words the server's own refusals (the app's error envelope); plain text by default. */
  errorBody?: ErrorBody;
  log?: ServerLog;
  onListen?: (addr: Deno.NetAddr) => void;
  /** Share the port with other processes (SO_REUSEPORT): the kernel spreads connections. */
  reusePort?: boolean;
  /** Offered each GET without a body before a Request is made for the handler (its hot path). */
  early?: EarlyHandler;
  /**
   * Told as soon as a request is on its way (a connection accepted, or the first bytes of
   * another request on a kept-alive one), a turn or more before its head is parsed: an app's
   * background work can stand aside for it from then on.
   */
  onArrival?: () => void;
}

/** A GET as parsed, before any Request is made: the URL as the handler would see it. */
export interface EarlyRequest {
  url: string;
  /** Field lines as sent (names in the client's case, OWS removed). */
  headers: readonly [string, string][];
  remoteAddr: Deno.NetAddr;
}

/**
 * Answers a request on its own, or null to leave it to the handler. It must answer exactly
 * as the handler would (the server writes both the same way), and must not have acted on the
 * request when it returns null.
 */
export type EarlyHandler = (
  req: EarlyRequest,
) => EarlyAnswer | null | Promise<EarlyAnswer | null>;

export type Handler = (
  req: Request,
  info: { remoteAddr: Deno.NetAddr; completed: Promise<void> },
) => Response | Promise<Response>;

export interface HttpServer {
  addr: Deno.NetAddr;
  /** Connections open now. */
  connections(): number;
  /** Connections open now, and what was counted since the start (evictions, refusals...). */
  stats(): FrontStats & { open: number };
  /**
   * Stops accepting and closes idle connections; the requests being answered finish, each
   * connection closing after its response, for up to `graceMs` (default 0); then every
   * connection left is closed.
   */
  shutdown(graceMs?: number): Promise<void>;
}

/**
 * A request whose signal is made only when something reads it: Deno's Request following a
 * signal given to it (a dependent signal, a WeakRef and a finalizer) costs as much again as
 * the rest of the request, and only streamed answers ever look at it.
 */
class ServerRequest extends Request {
  #aborter: AbortController | null = null;
  #gone: { reason: unknown } | null = null;

  override get signal(): AbortSignal {
    if (!this.#aborter) {
      this.#aborter = new AbortController();
      if (this.#gone) this.#aborter.abort(this.#gone.reason);
    }
    return this.#aborter.signal;
  }

  /** Aborts the signal, now or as soon as it is made. */
  abort(reason: unknown) {
    this.#gone ??= { reason };
    this.#aborter?.abort(reason);
  }
}

export const SERVE_DEFAULTS = {
  maxConnections: 256,
  maxConnectionsPerIp: 32,
  headerTimeoutMs: 20_000,
  bodyTimeoutMs: 30_000,
  maxBodyBytes: 32 * 1024 * 1024,
  maxHeaderBytes: 16 * 1024,
  maxRequestLineBytes: 8 * 1024,
};

const plainError: ErrorBody = (_status, message) => ({
  body: message,
  headers: { "content-type": "text/plain; charset=utf-8" },
});
const CONTINUE = new TextEncoder().encode("HTTP/1.1 100 Continue\r\n\r\n");
const ALLOW = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS";

/** Serves `handler` on hostname:port with the bounds of ServeOptions. */
export function serveHttp(options: ServeOptions, handler: Handler): HttpServer {
  const o = { ...SERVE_DEFAULTS, ...options };
  const log = o.log ?? (() => {});
  const errorBody = o.errorBody ?? plainError;
  const listener = Deno.listen({
    hostname: o.hostname,
    port: o.port,
    transport: "tcp",
    ...(o.reusePort ? { reusePort: true } : {}),
  });
  const addr = listener.addr as Deno.NetAddr;
  const self = `${addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname}:${addr.port}`;
  const limits: HeadLimits = {
    maxHeaderBytes: o.maxHeaderBytes,
    maxRequestLineBytes: Math.min(o.maxRequestLineBytes, o.maxHeaderBytes),
  };
  const conns = new Connections(o.maxConnections, o.maxConnectionsPerIp);
  const tasks = new Set<Promise<void>>();
  let closing = false;

  const close = (conn: Deno.Conn) => {
    try {
      conn.close();
    } catch { /* already closed */ }
  };
  const refusal = (status: number, message: string, extra: Record<string, string> = {}) => {
    const { body, headers } = errorBody(status, message);
    return closingResponse(status, body, { ...headers, ...extra });
  };
  /** Answers a refusal and ends the exchange; the connection closes after it. */
  const refuse = async (slot: Slot, err: Refusal | BodyError) => {
    conns.stats.refusedRequests++;
    await writeAll(slot, refusal(err.status, err.message)).catch(() => {});
    return false;
  };

  async function connection(slot: Slot) {
    const wire = new Wire(slot.conn);
    const remoteAddr = slot.conn.remoteAddr as Deno.NetAddr;
    try {
      for (let n = 0, keepAlive = true; keepAlive && !closing; n++) {
        keepAlive = await exchange(slot, wire, remoteAddr, n === 0);
      }
    } finally {
      conns.remove(slot);
      close(slot.conn);
    }
  }

  /** One request and its response; whether the connection may carry another. */
  async function exchange(
    slot: Slot,
    wire: Wire,
    remoteAddr: Deno.NetAddr,
    first: boolean,
  ): Promise<boolean> {
    // The head: within headerTimeoutMs of starting to wait, idle time included.
    if (!first) conns.enter(slot, wire.buffered.byteLength === 0 ? "idle" : "head");
    slot.deadline = systemClock() + o.headerTimeoutMs;
    let head: Head;
    try {
      const bytes = await readHead(wire, limits, () => {
        if (slot.phase !== "idle") return;
        conns.enter(slot, "head");
        o.onArrival?.();
      });
      if (bytes === null) return false;
      head = parseHead(bytes, self, o.maxBodyBytes);
    } catch (err) {
      return err instanceof Refusal ? await refuse(slot, err) : false;
    } finally {
      slot.deadline = null;
    }
    if (head.url === null) { // OPTIONS *: what the server as a whole allows
      conns.enter(slot, "busy");
      const options = `HTTP/1.1 204 No Content\r\nallow: ${ALLOW}\r\n\r\n`;
      await writeAll(slot, new TextEncoder().encode(options)).catch(() => {});
      return !head.close && head.length === 0; // a body it came with is never read
    }

    const noBody = head.method === "GET" || head.method === "HEAD";
    let keepAlive = !head.close;
    if (head.length !== 0 && noBody) keepAlive = false; // its body is never read
    if (o.early && head.method === "GET") {
      conns.enter(slot, "busy");
      const answered = await early(slot, head, remoteAddr, keepAlive);
      if (answered !== null) return answered;
    }
    const reads = head.length !== 0 && !noBody;
    conns.enter(slot, reads ? "body" : "busy");
    if (reads && head.expectContinue) await writeAll(slot, CONTINUE).catch(() => {});

    let req: ServerRequest | undefined;
    let bodyDone = !reads;
    let failed: BodyError | null = null;
    // The client leaving while the app works aborts the request's signal.
    const watch = () => {
      wire.fill().then((more) => more || req?.abort("client gone"));
    };
    const body = reads
      ? bodyStream(wire, head.length, {
        timeoutMs: o.bodyTimeoutMs,
        maxBodyBytes: o.maxBodyBytes,
        maxTrailerBytes: o.maxHeaderBytes,
      }, {
        onEnd() {
          bodyDone = true;
          conns.enter(slot, "busy");
          watch();
        },
        onError: (err) => failed = err,
      })
      : null;
    if (bodyDone) watch();

    let completed!: () => void;
    const done = new Promise<void>((r) => completed = r);
    try {
      req = new ServerRequest(head.url, { method: head.method, headers: head.headers, body });
    } catch {
      // A header value Headers does not allow.
      return await refuse(slot, new Refusal(400, "The request is not valid."));
    }
    let res: Response;
    try {
      res = await handler(req, { remoteAddr, completed: done });
    } catch (err) {
      if (!failed) log({ level: "error", event: "handler_failed", error: String(err) });
      res = new Response(null, { status: 500 });
    }
    // A body the app did not read to its end leaves the stream unusable for another request.
    if (!bodyDone) {
      keepAlive = false;
      await body?.cancel().catch(() => {});
    }
    if (failed) { // the framing broke: the server answers for it, whatever the app made of it
      await res.body?.cancel().catch(() => {});
      completed();
      return await refuse(slot, failed);
    }
    conns.enter(slot, "busy");
    if (conns.size >= o.maxConnections || closing) keepAlive = false; // others may be waiting
    try {
      // HTTP/1.0 knows no chunked bodies: an event stream ends with the connection.
      if (head.minor === 0 && /^text\/event-stream/i.test(res.headers.get("content-type") ?? "")) {
        keepAlive = false;
      }
      await writeResponse(slot, res, head.method === "HEAD", keepAlive, head.minor === 0);
    } catch {
      req.abort("client gone");
      await res.body?.cancel().catch(() => {});
      keepAlive = false;
    } finally {
      completed();
    }
    return keepAlive;
  }

  /** Whether the connection may carry another request, or null when `early` declined. */
  async function early(
    slot: Slot,
    head: Head,
    remoteAddr: Deno.NetAddr,
    keepAlive: boolean,
  ): Promise<boolean | null> {
    let answer: EarlyAnswer | null;
    try {
      const made = o.early!({ url: head.url!, headers: head.headers, remoteAddr });
      answer = made instanceof Promise ? await made : made;
    } catch (err) {
      log({ level: "error", event: "handler_failed", error: String(err) });
      answer = { status: 500, headers: [], body: new Uint8Array() };
    }
    if (answer === null) return null;
    if (conns.size >= o.maxConnections || closing) keepAlive = false; // others may be waiting
    try {
      await writeEarly(slot, answer, keepAlive);
    } catch {
      return false;
    }
    return keepAlive;
  }

  let acceptFailures = 0;
  let sharedSeq = 0;

  async function acceptLoop() {
    while (!closing) {
      // At the cap with every connection being answered, new clients wait in the listen
      // backlog until one ends; else the biggest holder gives one up as each arrives.
      while (conns.size >= o.maxConnections && !conns.canMakeRoom() && !closing) {
        await conns.freed();
      }
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
        o.onArrival?.();
        acceptFailures = 0;
      } catch (err) {
        if (closing || err instanceof Deno.errors.BadResource) return;
        // Out of file descriptors (or another passing failure): shed idle connections,
        // wait, and go on; clients wait in the backlog meanwhile.
        if (acceptFailures++ % 50 === 0) {
          log({ level: "error", event: "accept_failed", error: String(err), open: conns.size });
        }
        for (let i = 0; i < Math.ceil(conns.size / 4); i++) if (!conns.evictIdle()) break;
        await new Promise((r) => setTimeout(r, Math.min(1000, 20 * acceptFailures)));
        continue;
      }
      const remote = conn.remoteAddr as Deno.NetAddr;
      const peer = o.sharedAddress?.(remote.hostname) ? `shared:${++sharedSeq}` : peerKey(remote);
      let slot = conns.admit(conn, peer);
      // At the cap, nobody to give way yet: wait (new clients queue in the backlog meanwhile)
      // until a connection ends or one has been slow for long enough.
      while (slot === "full" && !closing) {
        await Promise.race([conns.freed(), new Promise((r) => setTimeout(r, 50))]);
        slot = conns.admit(conn, peer);
      }
      if (typeof slot === "string") {
        // Its address holds only connections being answered: a 503, not a wait.
        if (slot === "peer") conns.stats.refusedConnections++;
        const bytes = refusal(503, "Too many connections from this address.", {
          "retry-after": "1",
        });
        conn.write(bytes).catch(() => {}).finally(() => close(conn));
        continue;
      }
      // Heads and bodies go out in separate writes: Nagle's algorithm would hold them back.
      (conn as Deno.TcpConn).setNoDelay?.(true);
      const task = connection(slot).catch(() => {}).finally(() => tasks.delete(task));
      tasks.add(task);
    }
  }

  // One sweep closes every connection past its deadline: no timer per request or write.
  const sweeper = setInterval(() => {
    const now = systemClock();
    for (const s of conns.slots) if (s.deadline !== null && now > s.deadline) close(s.conn);
  }, Math.max(20, Math.min(1000, o.headerTimeoutMs / 4)));
  const accepting = acceptLoop();
  o.onListen?.(addr);
  return {
    addr,
    connections: () => conns.size,
    stats: () => ({ ...conns.stats, open: conns.size }),
    async shutdown(graceMs = 0) {
      closing = true;
      conns.wake();
      try {
        listener.close();
      } catch { /* already closed */ }
      await accepting;
      // A connection between requests carries no more; one mid-request gets its answer.
      for (const s of conns.slots) if (s.phase === "idle") close(s.conn);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise((r) => timer = setTimeout(r, graceMs));
      await Promise.race([Promise.all(tasks), late]);
      clearTimeout(timer);
      clearInterval(sweeper);
      for (const s of conns.slots) close(s.conn);
      await Promise.all(tasks);
    },
  };
}
