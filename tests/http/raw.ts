/** Raw-byte probes of lib/http/server/: a server that records what reaches the app, and a client. */
import { type HttpServer, serveHttp, type ServeOptions } from "../../lib/http/server/mod.ts";

export interface Seen {
  method: string;
  /** Path and query as the app sees them. */
  path: string;
  host: string;
  /** The Host header the app got. */
  hostHeader: string | null;
  body: string;
}

export interface Parsed {
  status: number;
  reason: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * A server whose app records every request it gets (and reads its body). `/status/N` answers
 * N; `/ignore` answers without reading the body; `/slow` waits 100 ms.
 */
export function probeServer(options: Partial<ServeOptions> = {}) {
  const seen: Seen[] = [];
  const server: HttpServer = serveHttp(
    { hostname: "127.0.0.1", port: 0, ...options },
    async (req) => {
      const url = new URL(req.url);
      const entry = {
        method: req.method,
        path: url.pathname + url.search,
        host: url.host,
        hostHeader: req.headers.get("host"),
        body: "",
      };
      seen.push(entry);
      if (url.pathname === "/slow") await new Promise((r) => setTimeout(r, 100));
      const status = /^\/status\/(\d+)$/.exec(url.pathname);
      if (status) return new Response(null, { status: Number(status[1]) });
      if (url.pathname !== "/ignore" && req.body) entry.body = await req.text();
      return new Response(`${req.method} ${entry.path} ${entry.body}`);
    },
  );
  return { server, seen, port: server.addr.port };
}

const latin1 = new TextDecoder("latin1");
const bytesOf = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));

/**
 * Sends `parts` (latin1 strings, one write each, `gapMs` apart) from 127.0.0.1 and reads until
 * the server closes or stays quiet for `quietMs`; the raw answer, parsed, and whether it closed.
 */
export async function exchange(
  port: number,
  parts: string | string[],
  { gapMs = 30, quietMs = 300 } = {},
) {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const started = performance.now();
  let raw = "";
  let closed = false;
  const reading = (async () => {
    const buf = new Uint8Array(64 * 1024);
    for (;;) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const n = await Promise.race([
        conn.read(buf).catch(() => null),
        new Promise<"quiet">((r) => timer = setTimeout(() => r("quiet"), quietMs + gapMs * 4)),
      ]).finally(() => clearTimeout(timer));
      if (n === "quiet") return;
      if (n === null) return closed = true;
      raw += latin1.decode(buf.subarray(0, n));
    }
  })();
  const list = typeof parts === "string" ? [parts] : parts;
  for (let i = 0; i < list.length; i++) {
    if (i) await new Promise((r) => setTimeout(r, gapMs));
    await conn.write(bytesOf(list[i])).catch(() => {});
  }
  await reading;
  const ms = performance.now() - started;
  try {
    conn.close();
  } catch { /* closed */ }
  return { raw, responses: parseResponses(raw), closed, ms };
}

/** Responses one after another, each framed by its Content-Length (none: no body). */
export function parseResponses(raw: string): Parsed[] {
  const out: Parsed[] = [];
  for (let at = 0; at < raw.length;) {
    const end = raw.indexOf("\r\n\r\n", at);
    if (end < 0) break;
    const [statusLine, ...lines] = raw.slice(at, end).split("\r\n");
    const m = /^HTTP\/1\.1 (\d{3}) (.*)$/.exec(statusLine);
    if (!m) throw new Error(`not a status-line: ${JSON.stringify(statusLine)}`);
    const headers: Record<string, string> = {};
    for (const l of lines) {
      const i = l.indexOf(":");
      headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
    }
    const length = Number(headers["content-length"] ?? 0);
    out.push({
      status: Number(m[1]),
      reason: m[2],
      headers,
      body: raw.slice(end + 4, end + 4 + length),
    });
    at = end + 4 + length;
  }
  return out;
}
