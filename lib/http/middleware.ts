/** HTTP plumbing shared by all routes: request ids, logging, the error envelope, JSON bodies. */
import type { Context, Hono, MiddlewareHandler } from "hono";
import { getConnInfo } from "hono/deno";
import { ApiError, asApiError, errorObject } from "./errors.ts";
import { randomBase62 } from "../sites/keys.ts";
import { parseJsonBody } from "./json.ts";
import type { AdminCaller } from "./auth.ts";

export type AppEnv = {
  /** adminCaller: set by a dashboard session (lib/http/session.ts) on admin calls. */
  Variables: { requestId: string; siteId?: string; adminCaller?: AdminCaller };
};
export type Logger = (line: Record<string, unknown>) => void;

export const jsonLogger: Logger = (line) => console.log(JSON.stringify(line));

/** Gives every request an id and logs one structured line for it; never keys or query strings. */
export function requestLog(log: Logger, now: () => number): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = now();
    const requestId = "req_" + randomBase62(20);
    c.set("requestId", requestId);
    let status = 500;
    try {
      await next();
      status = c.res.status;
    } catch (err) {
      // Thrown past this middleware (a 404 from notFound): the status onError will answer.
      status = asApiError(err).status;
      throw err;
    } finally {
      c.header("X-Request-Id", requestId);
      log({
        time: new Date(started).toISOString(),
        request_id: requestId,
        method: c.req.method,
        path: c.req.path,
        status,
        ms: Math.round((now() - started) * 10) / 10,
        site: c.get("siteId") ?? null,
      });
    }
  };
}

/** The error envelope of API.md, for any thrown value. */
export function errorResponse(err: unknown, c: Context<AppEnv>, log: Logger): Response {
  const e = asApiError(err);
  if (e.code === "SERVICE_UNAVAILABLE" && (e !== err || e.cause !== undefined)) {
    // The store failed: operators must hear of it even though the client only sees a 503.
    log({
      level: "error",
      event: "storage_unavailable",
      request_id: c.get("requestId"),
      error: String(e.cause ?? err),
    });
  }
  if (e.code === "INTERNAL_ERROR") {
    log({
      level: "error",
      request_id: c.get("requestId"),
      error: String(err),
      stack: (err as Error)?.stack,
    });
  }
  const headers = { "X-Request-Id": c.get("requestId") ?? "", ...e.extras.headers };
  return c.json({ error: errorObject(e, c.get("requestId") ?? "") }, e.status as 400, headers);
}

/** Registers 405 answers (with `Allow`) for the methods a path does not take. */
export function allowOnly(app: Hono<AppEnv>, path: string, methods: string[]) {
  const allow = [...methods, "OPTIONS"].join(", ");
  app.all(path, () => {
    throw new ApiError("METHOD_NOT_ALLOWED", `This endpoint takes ${methods.join(" or ")}.`, {
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
    throw new ApiError("UNSUPPORTED_MEDIA_TYPE", "Send the body as application/json.");
  }
  return await parseJsonBody(await readBody(c, maxBytes));
}

/**
 * Reads a raw body, refusing it as soon as it passes `maxBytes`. Bytes are copied into
 * one buffer as they arrive, so memory follows the body's size, not how many pieces it came in.
 */
export async function readBody(c: Context, maxBytes: number): Promise<Uint8Array> {
  const tooLarge = () =>
    new ApiError("PAYLOAD_TOO_LARGE", `The body must be at most ${maxBytes} bytes.`);
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

/** The client's IP address, or "unknown" for in-process requests. */
export function clientIp(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown"; // no socket (in-process requests)
  }
}
