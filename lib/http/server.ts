/**
 * HTTP/1.1 on Deno.listen, for what Deno.serve does not let us bound: a cap on open
 * connections (the longest-idle keep-alive one makes room, else a 503), a deadline for
 * a request's head (idle keep-alive included) and one for its body, bodies handed over
 * as they arrive (nothing buffered per TCP segment), and an accept loop that outlives
 * running out of file descriptors (it waits, sheds idle connections and goes on).
 */
import { ApiError, BodyError, errorObject } from "./errors.ts";
import type { Logger } from "./middleware.ts";
import { randomBase62 } from "../sites/keys.ts";
import { CRLF, HEAD_END, indexOf, latin1, Wire } from "./wire.ts";

export interface ServeOptions {
  hostname: string;
  port: number;
  /** Open connections at most (env MAX_CONNECTIONS). */
  maxConnections?: number;
  /** From waiting for a request to having its whole head (env HTTP_HEADER_TIMEOUT_MS). */
  headerTimeoutMs?: number;
  /** From the head to the body's last byte (env HTTP_BODY_TIMEOUT_MS). */
  bodyTimeoutMs?: number;
  /** The largest body any route takes; more is refused before it is read. */
  maxBodyBytes?: number;
  maxHeaderBytes?: number;
  log?: Logger;
  onListen?: (addr: Deno.NetAddr) => void;
  /** Share the port with other processes (SO_REUSEPORT): the kernel spreads connections. */
  reusePort?: boolean;
}

export type Handler = (
  req: Request,
  info: { remoteAddr: Deno.NetAddr; completed: Promise<void> },
) => Response | Promise<Response>;

export interface HttpServer {
  addr: Deno.NetAddr;
  /** Connections open now. */
  connections(): number;
  /** Stops accepting and closes every connection. */
  shutdown(): Promise<void>;
}

export const SERVE_DEFAULTS = {
  maxConnections: 256,
  headerTimeoutMs: 20_000,
  bodyTimeoutMs: 30_000,
  maxBodyBytes: 32 * 1024 * 1024,
  maxHeaderBytes: 16 * 1024,
};

const encoder = new TextEncoder();
const REASONS: Record<number, string> = {
  200: "OK",
  201: "Created",
  204: "No Content",
  304: "Not Modified",
  400: "Bad Request",
  404: "Not Found",
  408: "Request Timeout",
  413: "Content Too Large",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  501: "Not Implemented",
  503: "Service Unavailable",
};

/** A request the server refuses itself, before the app sees it. */
class Malformed extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

interface Head {
  method: string;
  target: string;
  minor: number;
  /** Name and value of each header line, as sent: a Request takes them without another copy. */
  headers: [string, string][];
}

/** A header's value (repeated ones joined as Headers.get joins them), or null. */
function field(head: Head, name: string): string | null {
  let out: string | null = null;
  for (const [k, v] of head.headers) {
    if (k.length === name.length && k.toLowerCase() === name) {
      out = out === null ? v : `${out}, ${v}`;
    }
  }
  return out;
}

const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\S+) HTTP\/1\.([01])$/;
const HEADER_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/;

function parseHead(bytes: Uint8Array): Head {
  const lines = latin1(bytes).split("\r\n");
  const m = REQUEST_LINE.exec(lines[0]);
  if (!m) throw new Malformed(400, "The request line is not HTTP/1.1.");
  const headers: [string, string][] = [];
  for (let i = 1; i < lines.length; i++) {
    const h = HEADER_LINE.exec(lines[i]);
    if (!h) throw new Malformed(400, "A header line is malformed.");
    headers.push([h[1], h[2]]);
  }
  return { method: m[1], target: m[2], minor: Number(m[3]), headers };
}

/** The JSON error envelope for a refusal made here, outside the app. */
function envelope(status: number, message: string, extra: Record<string, string> = {}) {
  const code = status === 413
    ? "PAYLOAD_TOO_LARGE"
    : status === 408
    ? "REQUEST_TIMEOUT"
    : status === 503
    ? "SERVICE_UNAVAILABLE"
    : status >= 500
    ? "INTERNAL_ERROR"
    : "INVALID_PARAMETER";
  const id = "req_" + randomBase62(20);
  const body = JSON.stringify({ error: errorObject(new ApiError(code, message), id) });
  const head = [
    `HTTP/1.1 ${status} ${REASONS[status] ?? "Error"}`,
    "content-type: application/json",
    `content-length: ${encoder.encode(body).byteLength}`,
    "connection: close",
    `x-request-id: ${id}`,
    ...Object.entries(extra).map(([k, v]) => `${k}: ${v}`),
  ];
  return encoder.encode(head.join("\r\n") + "\r\n\r\n" + body);
}

/** A client that stops reading for this long is dropped (its writes never finish otherwise). */
const WRITE_TIMEOUT_MS = 30_000;

/** Writes all of `bytes`; the slot's deadline covers the write, so a stalled reader is dropped. */
async function writeAll(slot: Slot, bytes: Uint8Array) {
  slot.deadline = Date.now() + WRITE_TIMEOUT_MS;
  try {
    for (let at = 0; at < bytes.byteLength;) at += await slot.conn.write(bytes.subarray(at));
  } finally {
    slot.deadline = null;
  }
}

interface Slot {
  conn: Deno.Conn;
  /** When a keep-alive connection started waiting for its next request; null otherwise. */
  idleSince: number | null;
  /** When the head being read or the write under way must be done by; null when neither. */
  deadline: number | null;
}

/** Serves `handler` on hostname:port with the bounds of ServeOptions. */
export function serveHttp(options: ServeOptions, handler: Handler): HttpServer {
  const o = { ...SERVE_DEFAULTS, ...options };
  const log = o.log ?? (() => {});
  const listener = Deno.listen({
    hostname: o.hostname,
    port: o.port,
    transport: "tcp",
    ...(o.reusePort ? { reusePort: true } : {}),
  });
  const addr = listener.addr as Deno.NetAddr;
  const slots = new Set<Slot>();
  const tasks = new Set<Promise<void>>();
  let closing = false;

  const close = (conn: Deno.Conn) => {
    try {
      conn.close();
    } catch { /* already closed */ }
  };

  /** Closes the longest-idle connection; false when every one is busy. */
  const evictIdle = (): boolean => {
    let oldest: Slot | null = null;
    for (const s of slots) {
      if (s.idleSince !== null && (!oldest || s.idleSince < oldest.idleSince!)) oldest = s;
    }
    if (!oldest) return false;
    oldest.idleSince = null;
    close(oldest.conn);
    return true;
  };

  async function connection(slot: Slot) {
    const wire = new Wire(slot.conn);
    const remoteAddr = slot.conn.remoteAddr as Deno.NetAddr;
    try {
      for (let n = 0, keepAlive = true; keepAlive && !closing; n++) {
        keepAlive = await exchange(slot, wire, remoteAddr, n === 0);
      }
    } finally {
      slots.delete(slot);
      close(slot.conn);
      freed?.();
      freed = null;
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
    // Only a connection that was served may be closed to make room; a new one gets its turn.
    if (wire.buffered.byteLength === 0 && !first) slot.idleSince = Date.now();
    slot.deadline = Date.now() + o.headerTimeoutMs;
    let head: Head;
    try {
      let end = -1;
      for (let from = 0; (end = indexOf(wire.buffered, HEAD_END, from)) < 0;) {
        // Empty lines before a request line are allowed (RFC 9112 section 2.2).
        while (wire.buffered[0] === 13 && wire.buffered[1] === 10) wire.consume(2);
        if (wire.buffered.byteLength > o.maxHeaderBytes) {
          throw new Malformed(431, "The request head is too large.");
        }
        from = Math.max(0, wire.buffered.byteLength - 3);
        if (!(await wire.fill())) return false;
        slot.idleSince = null;
      }
      slot.idleSince = null;
      if (end > o.maxHeaderBytes) throw new Malformed(431, "The request head is too large.");
      head = parseHead(wire.consume(end + 4).subarray(0, end));
    } catch (err) {
      if (err instanceof Malformed) {
        await writeAll(slot, envelope(err.status, err.message)).catch(() => {});
      }
      return false;
    } finally {
      slot.deadline = null;
    }
    try {
      return await respond(slot, wire, head, remoteAddr);
    } catch (err) {
      if (err instanceof Malformed) {
        await writeAll(slot, envelope(err.status, err.message)).catch(() => {});
      }
      return false;
    }
  }

  async function respond(slot: Slot, wire: Wire, head: Head, remoteAddr: Deno.NetAddr) {
    const te = field(head, "transfer-encoding");
    const cl = field(head, "content-length");
    if (te !== null && (cl !== null || te.toLowerCase() !== "chunked")) {
      throw new Malformed(
        400,
        "Only Transfer-Encoding: chunked, without Content-Length, is taken.",
      );
    }
    if (cl !== null && !/^\d{1,15}$/.test(cl)) {
      throw new Malformed(400, "Content-Length is not a number.");
    }
    const length = cl === null ? (te ? -1 : 0) : Number(cl);
    if (length > o.maxBodyBytes) {
      throw new Malformed(413, `The body must be at most ${o.maxBodyBytes} bytes.`);
    }
    let url: URL;
    try {
      url = head.target.startsWith("/")
        ? new URL(`http://${field(head, "host") || `${o.hostname}:${addr.port}`}${head.target}`)
        : new URL(head.target);
      if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error();
    } catch {
      throw new Malformed(400, "The request target or Host is not valid.");
    }
    const noBody = head.method === "GET" || head.method === "HEAD";
    let keepAlive = head.minor === 1 && !/\bclose\b/i.test(field(head, "connection") ?? "");
    if (field(head, "expect")?.toLowerCase() === "100-continue" && length !== 0) {
      await writeAll(slot, encoder.encode("HTTP/1.1 100 Continue\r\n\r\n"));
    }

    const aborter = new AbortController();
    let bodyDone = length === 0;
    // The client leaving while the app works aborts the request's signal.
    const watch = () => {
      wire.fill().then((more) => more || aborter.abort("client gone"));
    };
    const body = length === 0 || noBody ? null : bodyStream(wire, length, o.bodyTimeoutMs, () => {
      bodyDone = true;
      watch();
    });
    if (length !== 0 && noBody) keepAlive = false; // its body is never read
    if (bodyDone) watch();

    let completed!: () => void;
    const done = new Promise<void>((r) => completed = r);
    let req: Request;
    try {
      req = new Request(url, {
        method: head.method,
        headers: head.headers,
        body,
        signal: aborter.signal,
      });
    } catch {
      // A method fetch forbids, or a header value Headers does not allow.
      throw new Malformed(400, "The request is not valid.");
    }
    let res: Response;
    try {
      res = await handler(req, { remoteAddr, completed: done });
    } catch (err) {
      log({ level: "error", event: "handler_failed", error: String(err) });
      res = new Response(null, { status: 500 });
    }
    // A body the app did not read to its end leaves the stream unusable for another request.
    if (!bodyDone) {
      keepAlive = false;
      await body?.cancel().catch(() => {});
    }
    if (slots.size >= o.maxConnections) keepAlive = false; // others may be waiting
    try {
      // HTTP/1.0 knows no chunked bodies: an event stream ends with the connection.
      if (head.minor === 0 && /^text\/event-stream/i.test(res.headers.get("content-type") ?? "")) {
        keepAlive = false;
      }
      await writeResponse(slot, res, head.method === "HEAD", keepAlive, head.minor === 0);
    } catch {
      aborter.abort("client gone");
      await res.body?.cancel().catch(() => {});
      keepAlive = false;
    } finally {
      completed();
    }
    return keepAlive;
  }

  let acceptFailures = 0;
  let freed: (() => void) | null = null;

  async function acceptLoop() {
    while (!closing) {
      // At the cap, new clients wait in the listen backlog until a connection ends; every
      // response meanwhile closes its connection, so waiting clients get their turn.
      while (slots.size >= o.maxConnections && !evictIdle() && !closing) {
        await new Promise<void>((r) => freed = r);
      }
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
        acceptFailures = 0;
      } catch (err) {
        if (closing || err instanceof Deno.errors.BadResource) return;
        // Out of file descriptors (or another passing failure): shed idle connections,
        // wait, and go on; clients wait in the backlog meanwhile.
        if (acceptFailures++ % 50 === 0) {
          log({ level: "error", event: "accept_failed", error: String(err), open: slots.size });
        }
        for (let i = 0; i < Math.ceil(slots.size / 4); i++) if (!evictIdle()) break;
        await new Promise((r) => setTimeout(r, Math.min(1000, 20 * acceptFailures)));
        continue;
      }

      // Heads and bodies go out in separate writes: Nagle's algorithm would hold them back.
      (conn as Deno.TcpConn).setNoDelay?.(true);
      const slot: Slot = { conn, idleSince: null, deadline: null };
      slots.add(slot);
      const task = connection(slot).catch(() => {}).finally(() => tasks.delete(task));
      tasks.add(task);
    }
  }

  // One sweep closes every connection past its deadline: no timer per request or write.
  const sweeper = setInterval(() => {
    const now = Date.now();
    for (const s of slots) if (s.deadline !== null && now > s.deadline) close(s.conn);
  }, Math.max(20, Math.min(1000, o.headerTimeoutMs / 4)));
  const accepting = acceptLoop();
  o.onListen?.(addr);
  return {
    addr,
    connections: () => slots.size,
    async shutdown() {
      closing = true;
      clearInterval(sweeper);
      freed?.();
      try {
        listener.close();
      } catch { /* already closed */ }
      for (const s of slots) close(s.conn);
      await accepting;
      await Promise.all(tasks);
    },
  };
}

/** A request body read as the app asks for it, within `timeoutMs`, at most `length` bytes (-1: chunked). */
function bodyStream(
  wire: Wire,
  length: number,
  timeoutMs: number,
  onEnd: () => void,
): ReadableStream<Uint8Array> {
  const deadline = Date.now() + timeoutMs;
  let left = length; // bytes left of this body (known length) or of the current chunk
  const chunked = length < 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const withDeadline = <T>(p: Promise<T>): Promise<T> => {
    const ms = deadline - Date.now();
    if (ms <= 0) return Promise.reject(timeout());
    return Promise.race([
      p,
      new Promise<T>((_, reject) => timer = setTimeout(() => reject(timeout()), ms)),
    ]).finally(() => clearTimeout(timer));
  };
  const timeout = () => new BodyError(408, "The request body did not arrive in time.");
  const truncated = () => new BodyError(400, "The request body ended early.");
  const malformed = () => new BodyError(400, "The request body's chunked framing is malformed.");
  return new ReadableStream<Uint8Array>({
    async pull(ctrl) {
      if (chunked && left <= 0) {
        if (left === 0) { // the CRLF after a chunk's data
          const end = await withDeadline(wire.line(16));
          if (end !== "") throw malformed();
        }
        const size = await withDeadline(wire.line(1024));
        if (size === null) throw malformed();
        const n = parseInt(size.split(";")[0].trim(), 16);
        if (!/^[0-9a-f]+$/i.test(size.split(";")[0].trim()) || !Number.isSafeInteger(n)) {
          throw malformed();
        }
        if (n === 0) {
          // Trailers, then the empty line.
          for (let i = 0;; i++) {
            const t = await withDeadline(wire.line(8192));
            if (t === null || i > 100) throw malformed();
            if (t === "") break;
          }
          ctrl.close();
          onEnd();
          return;
        }
        left = n;
      }
      const part = await withDeadline(wire.take(Math.min(left, 64 * 1024)));
      if (part === null) throw truncated();
      left -= part.byteLength;
      ctrl.enqueue(part);
      if (!chunked && left === 0) {
        ctrl.close();
        onEnd();
      }
    },
  }, { highWaterMark: 0 });
}

/**
 * Bodies of responses made from bytes already in memory (`respond` in middleware.ts): sent
 * as they are, not read back out of the Response through a stream.
 */
export const knownBodies = new WeakMap<Response, Uint8Array>();

/** The Date header's value, made once a second. */
function httpDate(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== lastDate.second) lastDate = { second, text: new Date().toUTCString() };
  return lastDate.text;
}
let lastDate = { second: 0, text: "" };

const NO_BODY = new Set([204, 304]);
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "content-length"]);

/** Writes a response: its declared length, or chunked; a HEAD's or 204/304's without a body. */
async function writeResponse(
  slot: Slot,
  res: Response,
  head: boolean,
  keepAlive: boolean,
  http10: boolean,
) {
  const lines = [`HTTP/1.1 ${res.status} ${REASONS[res.status] ?? (res.statusText || "Status")}`];
  res.headers.forEach((v, k) => HOP_BY_HOP.has(k) || lines.push(`${k}: ${v}`));
  if (!res.headers.has("date")) lines.push(`date: ${httpDate()}`);
  if (!keepAlive) lines.push("connection: close");
  const declared = res.headers.get("content-length");
  const bodyless = head || NO_BODY.has(res.status) || res.status < 200;
  const fixed = declared !== null && /^\d+$/.test(declared) ? Number(declared) : null;
  const headBytes = () => encoder.encode(lines.join("\r\n") + "\r\n\r\n");
  const known = bodyless ? undefined : knownBodies.get(res);
  if (!known && (bodyless || !res.body)) {
    if (bodyless && fixed !== null && !NO_BODY.has(res.status)) {
      lines.push(`content-length: ${fixed}`);
    }
    if (!bodyless) lines.push("content-length: 0");
    await res.body?.cancel().catch(() => {});
    await writeAll(slot, headBytes());
    return;
  }
  if (known || !/^text\/event-stream/i.test(res.headers.get("content-type") ?? "")) {
    // Anything but an event stream is read whole and sent in one write, head included.
    const body = known ?? new Uint8Array(await res.arrayBuffer());
    if (fixed !== null && body.byteLength !== fixed) throw new Error("body length mismatch");
    lines.push(`content-length: ${body.byteLength}`);
    const h = headBytes();
    const out = new Uint8Array(h.byteLength + body.byteLength);
    out.set(h);
    out.set(body, h.byteLength);
    await writeAll(slot, out);
    return;
  }
  // An event stream goes out as it is made: chunked, or until the close for HTTP/1.0.
  if (!http10) lines.push("transfer-encoding: chunked");
  await writeAll(slot, headBytes());
  for await (const part of res.body!) {
    if (part.byteLength === 0) continue;
    if (http10) {
      await writeAll(slot, part);
      continue;
    }
    const size = encoder.encode(part.byteLength.toString(16) + "\r\n");
    const frame = new Uint8Array(size.byteLength + part.byteLength + 2);
    frame.set(size);
    frame.set(part, size.byteLength);
    frame.set(CRLF, size.byteLength + part.byteLength);
    await writeAll(slot, frame);
  }
  if (!http10) await writeAll(slot, encoder.encode("0\r\n\r\n"));
}
