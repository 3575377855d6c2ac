/** HTTP plumbing shared by all routes: request ids, logging, the error envelope, JSON bodies. */
import type { Context, Hono, MiddlewareHandler } from "hono";
import { ApiError, asApiError, errorObject } from "./errors.ts";
import { randomBase62 } from "../sites/keys.ts";

export type AppEnv = { Variables: { requestId: string; siteId?: string } };
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

/** How deep arrays and objects may nest in a JSON body; deeper is a 400, never a stack overflow. */
export const MAX_JSON_DEPTH = 64;

/** Reads a JSON body: 415 unless JSON, 413 over `maxBytes`, 400 when it does not parse or nests too deep. */
export async function readJson(c: Context, maxBytes: number): Promise<unknown> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new ApiError("UNSUPPORTED_MEDIA_TYPE", "Send the body as application/json.");
  }
  const text = await jsonText(await readBody(c, maxBytes));
  if (await nestingDepth(text) > MAX_JSON_DEPTH) {
    throw new ApiError(
      "INVALID_JSON",
      `The body nests arrays and objects more than ${MAX_JSON_DEPTH} deep.`,
    );
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError("INVALID_JSON", "The body is not valid JSON.");
  }
}

/** Work on a large body goes in slices of this many bytes or characters, yielding in between. */
const SLICE = 1 << 20;
const yieldNow = () => new Promise((r) => setTimeout(r, 0));

/**
 * The body as text, decoded in slices so a large one never holds up other requests. Bytes
 * that are not UTF-8 become a lone surrogate escape (\udfff), so JSON.parse still reads the
 * body and each string that held them is not well formed: the field it belongs to can be
 * refused on its own (a page among many) rather than silently turned into U+FFFD.
 */
export async function jsonText(bytes: Uint8Array): Promise<string> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const parts: string[] = [];
  try {
    for (let i = 0; i < bytes.length; i += SLICE) {
      parts.push(decoder.decode(bytes.subarray(i, i + SLICE), { stream: true }));
      if (i + SLICE < bytes.length) await yieldNow();
    }
    parts.push(decoder.decode());
    return parts.join("");
  } catch {
    return marked(bytes);
  }
}

/** The body with each byte that is not part of well-formed UTF-8 written as \udfff. */
function marked(bytes: Uint8Array): string {
  const out: string[] = [];
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let from = 0;
  for (let i = 0; i < bytes.length;) {
    const n = utf8Length(bytes, i);
    if (n > 0) {
      i += n;
      continue;
    }
    out.push(decoder.decode(bytes.subarray(from, i)), "\\udfff");
    from = ++i;
  }
  out.push(decoder.decode(bytes.subarray(from)));
  return out.join("");
}

/** Bytes of the well-formed UTF-8 sequence at `i`, or 0 when there is none. */
function utf8Length(b: Uint8Array, i: number): number {
  const c = b[i];
  const cont = (k: number) => i + k < b.length && (b[i + k] & 0xc0) === 0x80;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const c1 = b[i + 1];
    if (c === 0xe0 && c1 < 0xa0) return 0; // overlong
    if (c === 0xed && c1 > 0x9f) return 0; // surrogate
    return cont(1) && cont(2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const c1 = b[i + 1];
    if (c === 0xf0 && c1 < 0x90) return 0;
    if (c === 0xf4 && c1 > 0x8f) return 0;
    return cont(1) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

/** The deepest nesting of [ and { outside strings (JSON.parse would accept any depth). */
export async function nestingDepth(text: string): Promise<number> {
  let depth = 0, max = 0, inString = false;
  for (let i = 0; i < text.length; i++) {
    if (i % SLICE === SLICE - 1) await yieldNow();
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92) i++; // backslash: skip the escaped character
      else if (ch === 34) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 91 || ch === 123) {
      if (++depth > max) max = depth;
    } else if (ch === 93 || ch === 125) depth--;
  }
  return max;
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
