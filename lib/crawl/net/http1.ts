/**
 * One GET over HTTP/1.1, on a socket to an address the guard already checked. The request
 * line is origin-form (`GET /path?q HTTP/1.1` with the URL's Host), which every server takes;
 * HTTPS is TLS started on that same socket with the URL's host name for SNI and the
 * certificate check. Nothing resolves the name again, and no proxy is involved.
 */
import { latin1, responseHead, sendAll, Wire } from "../../http/wire.ts";
import { normalizeHost } from "./guard.ts";

export interface Http1Get {
  url: URL;
  /** The checked address to connect to. */
  ip: string;
  headers: Record<string, string>;
  caCerts?: string[];
  /** Aborting closes the socket: a pending read or the body fails. */
  signal: AbortSignal;
}

const MAX_HEAD_BYTES = 64 * 1024;
const CODINGS: Record<string, CompressionFormat | null> = {
  gzip: "gzip",
  "x-gzip": "gzip",
  deflate: "deflate",
  br: "brotli" as CompressionFormat,
  identity: null,
};

/** The response to a GET, its body streamed (and decompressed) as it is read. */
export async function http1Get(req: Http1Get): Promise<Response> {
  const { url, signal } = req;
  const https = url.protocol === "https:";
  const port = Number(url.port || (https ? 443 : 80));
  let conn: Deno.Conn = await Deno.connect({ hostname: req.ip, port, signal });
  const close = () => {
    try {
      conn.close();
    } catch { /* already closed */ }
  };
  const done = () => {
    signal.removeEventListener("abort", close);
    close();
  };
  signal.addEventListener("abort", close, { once: true });
  try {
    if (https) {
      conn = await Deno.startTls(conn as Deno.TcpConn, {
        hostname: normalizeHost(url.hostname),
        caCerts: req.caCerts,
      });
    }
    const lines = [`GET ${url.pathname || "/"}${url.search} HTTP/1.1`, `Host: ${url.host}`];
    for (const [k, v] of Object.entries(req.headers)) {
      if (/[\r\n]/.test(k + v)) throw new TypeError("header with a line break");
      lines.push(`${k}: ${v}`);
    }
    lines.push("Accept-Encoding: gzip, deflate, br", "Connection: close");
    const bytes = new TextEncoder().encode(lines.join("\r\n") + "\r\n\r\n");
    await sendAll(conn, bytes);

    const wire = new Wire(conn);
    let status: number, headers: Headers;
    do { // 1xx answers come before the real one
      const head = await wire.head(MAX_HEAD_BYTES);
      if (!head) throw new TypeError("no response head");
      ({ status, headers } = responseHead(latin1(head)));
    } while (status < 200);
    const framing = bodyFraming(status, headers);
    if (framing === null) {
      done();
      return new Response(null, { status, headers });
    }
    let body = bodyStream({ wire, length: framing, signal, done });
    const coding = (headers.get("content-encoding") ?? "identity").trim().toLowerCase();
    if (!(coding in CODINGS)) throw new TypeError(`unknown content coding ${coding}`);
    const format = CODINGS[coding];
    if (format) {
      body = body.pipeThrough(
        new DecompressionStream(format) as unknown as TransformStream<Uint8Array, Uint8Array>,
      );
    }
    return new Response(body, { status, headers });
  } catch (err) {
    done();
    throw err;
  }
}

/**
 * How a response's body ends (RFC 9112 section 6.3): null for none (204, 304), -1 chunked,
 * Infinity at the close (no length), else Content-Length, which must be digits (a list of one
 * value repeated is that value). Anything else is an error, not a guess: a fraction or a sign
 * would leave the body's reads owing a part of a byte, and they would never end; a transfer
 * coding besides chunked was not asked for (no TE is sent) and would be stored undecoded.
 * Chunked overrides a Content-Length, which is then dropped so nothing reads it as the size.
 */
function bodyFraming(status: number, headers: Headers): number | null {
  if (status === 204 || status === 304) return null;
  const te = headers.get("transfer-encoding");
  if (te !== null) {
    if (te.trim().toLowerCase() !== "chunked") {
      throw new TypeError("a transfer coding not asked for");
    }
    headers.delete("content-length");
    return -1;
  }
  const cl = headers.get("content-length");
  if (cl === null) return Infinity;
  const values = new Set(cl.split(",").map((v) => v.trim()));
  const [only] = values;
  if (values.size !== 1 || !/^\d{1,15}$/.test(only)) throw new TypeError("bad Content-Length");
  return Number(only);
}

/** Where a response's body is read from, and how it ends. */
interface BodySource {
  wire: Wire;
  /** Bytes, chunked (-1) or up to the close (Infinity). */
  length: number;
  /** The request's: an abort closes the socket, which is not the close that ends a body. */
  signal: AbortSignal;
  /** Called at the body's end or cancel. */
  done: () => void;
}

/** The body, streamed. */
function bodyStream({ wire, length, signal, done }: BodySource): ReadableStream<Uint8Array> {
  let left = length; // of the body, or of the current chunk
  const chunked = length === -1;
  const broken = () => new TypeError("the response body was cut short or malformed");
  return new ReadableStream<Uint8Array>({
    async pull(ctrl) {
      try {
        if (chunked && left <= 0) {
          if (left === 0 && (await wire.line(2)) !== "") throw broken();
          const size = (await wire.line(1024))?.split(";")[0].trim() ?? "";
          if (!/^[0-9a-f]{1,12}$/i.test(size)) throw broken();
          left = parseInt(size, 16);
          if (left === 0) {
            ctrl.close();
            done();
            return;
          }
        }
        if (left === 0) {
          ctrl.close();
          done();
          return;
        }
        const part = await wire.take(Math.min(left, 64 * 1024));
        if (part === null) {
          if (length !== Infinity || signal.aborted) throw broken();
          ctrl.close();
          done();
          return;
        }
        left -= part.byteLength;
        ctrl.enqueue(part);
      } catch (err) {
        done();
        throw err;
      }
    },
    cancel: done,
  }, { highWaterMark: 0 });
}
