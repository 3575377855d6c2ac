/** HTTP plumbing shared by all routes: request ids, logging, the error envelope, JSON bodies. */
import { onDeploy } from "../deploy.ts";
import type { Context, Hono, MiddlewareHandler, Next } from "hono";
import { getConnInfo } from "hono/deno";
import { clientAddress, type TrustedProxies } from "./proxies.ts";
import { DomainError, type ErrorCode } from "../errors.ts";
import { asDomainError, errorHeaders, errorObject, ERRORS, statusOf } from "./errors.ts";
import { randomBase62 } from "../sites/keys.ts";
import { parseJsonBody } from "./json.ts";
import { sendAll } from "./wire.ts";
import { type ErrorBody, knownBodies } from "./server/mod.ts";
import type { Site } from "../sites/store.ts";

/** Who an admin call is from (auth.ts authenticates it; a dashboard session may set it). */
export interface AdminCaller {
  operator: boolean;
  /** The site a site admin key belongs to (null for the operator). */
  site: Site | null;
}

export type AppEnv = {
  /** adminCaller: set by a dashboard session (lib/http/session.ts) on admin calls. */
  Variables: {
    requestId: string;
    siteId?: string;
    adminCaller?: AdminCaller;
    /** Headers middleware adds to every answer: `respond` makes them part of the Response. */
    headers?: [string, string][];
  };
};
export type Logger = (line: Record<string, unknown>) => void;

/**
 * Log lines waiting for stdout. A request never waits on the write: lines gather until the
 * current burst of work is done and go out together in one asynchronous write (console.log
 * would write each synchronously, and block the event loop while stdout's pipe is full).
 */
export class LineWriter {
  #lines: string[] = [];
  #dropped = 0;
  #draining: Promise<void> | null = null;
  constructor(
    private out: { write(p: Uint8Array): Promise<number> },
    /** Lines held at most while the output is stalled; more are counted, and dropped. */
    private maxLines = 100_000,
    /** How long the first line of a batch waits for others: 0 for the current burst only. */
    private batchMs = 0,
  ) {}

  /** Queues one line (without its newline). */
  write(line: string) {
    if (this.#lines.length >= this.maxLines) this.#dropped++;
    else this.#lines.push(line);
    this.#draining ??= this.#drain();
  }

  /** Resolves once every line queued so far is written. */
  async flush(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  async #drain() {
    try {
      // The lines of one burst (or of batchMs) share a write.
      await new Promise((r) => setTimeout(r, this.batchMs));
      while (this.#lines.length) {
        if (this.#dropped) {
          this.#lines.push(
            JSON.stringify({ level: "error", event: "log_dropped", lines: this.#dropped }),
          );
          this.#dropped = 0;
        }
        const bytes = lineEncoder.encode(this.#lines.join("\n") + "\n");
        this.#lines = [];
        await sendAll(this.out, bytes);
      }
    } catch {
      this.#lines = []; // stdout is gone: nothing can be logged any more
    } finally {
      this.#draining = null;
    }
  }
}

const lineEncoder = new TextEncoder();
/**
 * The process's log on stdout, one JSON object a line. Under load a burst is a few requests:
 * lines gather for 10 ms, so a busy server makes ~100 writes a second, not one per burst.
 */
export const stdoutLines = new LineWriter(Deno.stdout, 100_000, 10);

/** Deno Deploy collects what console.log prints, a line an entry: there it stays the way. */
const deployed = onDeploy();

export const jsonLogger: Logger = deployed
  ? (line) => console.log(JSON.stringify(line))
  : (line) => stdoutLines.write(JSON.stringify(line));

/** `n` base62 characters of a counter, most significant first. */
function base62(n: number, width: number): string {
  let out = "";
  for (let i = 0; i < width; i++, n = Math.floor(n / 62)) out = BASE62[n % 62] + out;
  return out;
}
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** Request ids: a random prefix per process and a counter, so none costs random bytes. */
const ID_PREFIX = "req_" + randomBase62(12);
let idCounter = 0;
/** A new request id. */
export const nextRequestId = () => ID_PREFIX + base62(idCounter++, 8);

/** Responses made by `respond`, which already carry the headers middleware asked for. */
const complete = new WeakSet<Response>();

/**
 * Adds headers to the request's answer: at once when a route makes it with `respond`, else
 * set in place on whatever the route returned (Hono's `c.header` after a handler copies the
 * whole response first; a response whose headers are immutable still goes that way).
 */
async function withHeaders(c: Context<AppEnv>, headers: [string, string][], next: Next) {
  const pending = c.get("headers");
  if (pending) pending.push(...headers);
  else c.set("headers", [...headers]);
  await next();
  const res = c.res;
  if (complete.has(res)) return;
  try {
    for (const [k, v] of headers) res.headers.set(k, v);
  } catch {
    for (const [k, v] of headers) c.header(k, v);
  }
}

/** A route's answer made once, with the headers middleware asked for (the fast way to answer). */
export function respond(
  c: Context<AppEnv>,
  body: BodyInit,
  status: number,
  headers: Record<string, string>,
): Response {
  // Appended one by one: a headers init is converted as a WebIDL sequence of sequences,
  // which costs three times as much for the same headers.
  const res = new Response(body, { status });
  const out = res.headers;
  for (const name in headers) out.append(name, headers[name]);
  const pending = c.get("headers");
  if (pending) { for (const [name, value] of pending) out.append(name, value); }
  complete.add(res);
  if (body instanceof Uint8Array) knownBodies.set(res, body); // our server sends it as it is
  return res;
}

/** Gives every request an id and logs one structured line for it; never keys or query strings. */
export function requestLog(log: Logger, now: () => number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = now();
    const requestId = nextRequestId();
    c.set("requestId", requestId);
    let status = 500;
    try {
      await withHeaders(c, [["X-Request-Id", requestId]], next);
      status = c.res.status;
    } catch (err) {
      // Thrown past this middleware (a 404 from notFound): the status onError will answer.
      status = statusOf(asDomainError(err));
      c.header("X-Request-Id", requestId);
      throw err;
    } finally {
      log(accessLine(started, now(), requestId, c.req.method, c.req.path, status, c.get("siteId")));
    }
  };
}

/** The access log's line for one request, whichever way it was answered. */
export function accessLine(
  started: number,
  ended: number,
  requestId: string,
  method: string,
  path: string,
  status: number,
  siteId: string | undefined,
): Record<string, unknown> {
  return {
    time: isoTime(started),
    request_id: requestId,
    method,
    path,
    status,
    ms: Math.round((ended - started) * 10) / 10,
    site: siteId ?? null,
  };
}

/**
 * A time as ISO 8601 text to the millisecond: the date and time made once a second, the
 * milliseconds added (a request a millisecond or slower made a Date and its text each time).
 */
export function isoTime(t: number): string {
  const ms = Math.floor(t);
  const second = Math.floor(ms / 1000);
  if (second !== lastIso.second) {
    lastIso = { second, prefix: new Date(second * 1000).toISOString().slice(0, -4) };
  }
  return `${lastIso.prefix}${String(ms - second * 1000).padStart(3, "0")}Z`;
}
let lastIso = { second: NaN, prefix: "" };

/** What the public API's CORS allows. */
export interface CorsOptions {
  methods: string[];
  allowHeaders: string[];
  exposeHeaders: string[];
  maxAgeSeconds: number;
}

/** The CORS headers every public API answer carries (preflights carry more). */
export function corsHeaders(o: CorsOptions): [string, string][] {
  return [
    ["Access-Control-Allow-Origin", "*"],
    ["Access-Control-Expose-Headers", o.exposeHeaders.join(",")],
  ];
}

/** CORS for the public API: any origin; a site's allowedOrigins is enforced per request. */
export function publicCors(o: CorsOptions): MiddlewareHandler<AppEnv> {
  // Built once: every answer carries the same two headers, every preflight the same five.
  const simple = corsHeaders(o);
  const preflight: [string, string][] = [
    ...simple,
    ["Access-Control-Max-Age", String(o.maxAgeSeconds)],
    ["Access-Control-Allow-Methods", o.methods.join(",")],
    ["Access-Control-Allow-Headers", o.allowHeaders.join(",")],
    ["Vary", "Access-Control-Request-Headers"],
  ];
  return async (c, next) => {
    if (c.req.method === "OPTIONS") return new Response(null, { status: 204, headers: preflight });
    await withHeaders(c, simple, next);
  };
}

/** The error envelope of docs/api.md, for any thrown value. */
export function errorResponse(err: unknown, c: Context<AppEnv>, log: Logger): Response {
  const { status, body, headers } = errorAnswer(err, c.get("requestId") ?? "", log);
  return c.json(body, status as 400, headers);
}

/** The status, envelope and headers of an error answer, its failure logged when it is ours. */
export function errorAnswer(err: unknown, requestId: string, log: Logger) {
  const e = asDomainError(err);
  if (e.code === "SERVICE_UNAVAILABLE" && (e !== err || e.cause !== undefined)) {
    // The store failed: operators must hear of it even though the client only sees a 503.
    log({
      level: "error",
      event: "storage_unavailable",
      request_id: requestId,
      error: String(e.cause ?? err),
    });
  }
  if (e.code === "INTERNAL_ERROR") {
    log({
      level: "error",
      request_id: requestId,
      error: String(err),
      stack: (err as Error)?.stack,
    });
  }
  const headers: Record<string, string> = { "X-Request-Id": requestId, ...errorHeaders(e) };
  return { status: statusOf(e), body: { error: errorObject(e, requestId) }, headers };
}

/**
 * The error envelope of a request our HTTP server refuses before the app sees it (malformed,
 * too large, late): the first code of ERRORS with that status.
 */
export const serverErrorBody: ErrorBody = (status, message) => {
  const code = (Object.keys(ERRORS) as ErrorCode[]).find((k) => ERRORS[k].status === status) ??
    (status >= 500 ? "INTERNAL_ERROR" : "INVALID_PARAMETER");
  const id = nextRequestId();
  return {
    body: JSON.stringify({ error: errorObject(new DomainError(code, message), id) }),
    headers: { "content-type": "application/json", "x-request-id": id },
  };
};

/** Registers 405 answers (with `Allow`) for the methods a path does not take. */
export function allowOnly(app: Hono<AppEnv>, path: string, methods: string[]) {
  const allow = [...methods, "OPTIONS"].join(", ");
  app.all(path, () => {
    throw new DomainError("METHOD_NOT_ALLOWED", `This endpoint takes ${methods.join(" or ")}.`, {
      headers: { Allow: allow },
    });
  });
}

/**
 * Reads a JSON body: 415 unless JSON, 413 over `maxBytes`, 400 when it does not parse or nests
 * too deep.
 * `orText` also takes text/plain (what navigator.sendBeacon sends without a preflight).
 */
export async function readJson(c: Context, maxBytes: number, orText = false): Promise<unknown> {
  const type = c.req.header("content-type") ?? "";
  const text = orText && /^text\/plain\s*(;|$)/i.test(type);
  if (!text && !/^application\/json\s*(;|$)/i.test(type)) {
    throw new DomainError("UNSUPPORTED_MEDIA_TYPE", "Send the body as application/json.");
  }
  return await parseJsonBody(await readBody(c, maxBytes));
}

/**
 * Reads a raw body, refusing it as soon as it passes `maxBytes`. Bytes are copied into
 * one buffer as they arrive, so memory follows the body's size, not how many pieces it came in.
 */
export async function readBody(c: Context, maxBytes: number): Promise<Uint8Array> {
  const tooLarge = () =>
    new DomainError("PAYLOAD_TOO_LARGE", `The body must be at most ${maxBytes} bytes.`);
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > maxBytes) throw tooLarge();
  const body = c.req.raw.body;
  if (!body) return new Uint8Array();
  let buf = new Uint8Array(
    Math.min(maxBytes, declared > 0 ? Math.min(declared, 1 << 20) : 16 * 1024),
  );
  let size = 0;
  for await (const part of body) {
    if (size + part.byteLength > maxBytes) throw tooLarge();
    if (size + part.byteLength > buf.byteLength) {
      const grown = new Uint8Array(
        Math.min(maxBytes, Math.max(buf.byteLength * 2, size + part.byteLength)),
      );
      grown.set(buf.subarray(0, size));
      buf = grown;
    }
    buf.set(part, size);
    size += part.byteLength;
  }
  return buf.subarray(0, size);
}

/** The address of a request that came with no socket (in-process). */
export const UNKNOWN_IP = "unknown";

/**
 * The client's IP address, or "unknown" for in-process requests: the socket's peer, or, from
 * a trusted proxy (TRUSTED_PROXIES), the address it forwarded (proxies.ts).
 */
/** A client address as analytics tells visitors apart by: none for an in-process request. */
export const visitorOf = (ip: string) => ip === UNKNOWN_IP ? undefined : ip;

export function clientIp(c: Context, trusted: TrustedProxies | null): string {
  let peer: string;
  try {
    peer = getConnInfo(c).remote.address ?? UNKNOWN_IP;
  } catch {
    return UNKNOWN_IP; // no socket (in-process requests)
  }
  return clientAddress(peer, c.req.header("x-forwarded-for") ?? null, trusted);
}
