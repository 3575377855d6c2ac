/**
 * GET /widget.js, /results.js, /sse.js and /answer.js (modules they import) and /i18n/<lang>.json
 * (a language's strings): built files for any origin, with a content ETag.
 */
import { Hono } from "hono";
import { DomainError } from "../lib/errors.ts";
import type { AppEnv } from "../lib/http/middleware.ts";
import type { Services } from "../lib/services.ts";
import { staticFiles } from "../widget/i18n/all.ts";

const STATIC = new URL("../static/", import.meta.url);
const FILES = [
  "widget.js",
  "results.js",
  "sse.js",
  "answer.js",
  ...staticFiles().map(([path]) => path),
];
/** Short, so a new release reaches every site within minutes. */
const CACHE_CONTROL = "public, max-age=300";

interface Loaded {
  mtime: number;
  body: Uint8Array<ArrayBuffer>;
  gzip: Uint8Array<ArrayBuffer>;
  /** A hash of the content; the gzipped bytes are tagged `"<hash>-gz"`. */
  etag: string;
}

async function gzip(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** A rebuild while the server runs shows up within this long; no file check per request. */
const RECHECK_MS = 2_000;

/** Reads a bundle, again only when its file changed (a rebuild while the server runs). */
export function loader(name: string) {
  let cached: Loaded | null = null;
  let checkedAt = -Infinity;
  return async (): Promise<Loaded | null> => {
    if (cached && performance.now() - checkedAt < RECHECK_MS) return cached;
    checkedAt = performance.now();
    const url = new URL(name, STATIC);
    let mtime: number;
    try {
      mtime = (await Deno.stat(url)).mtime?.getTime() ?? 0;
    } catch (e) {
      if (e instanceof Deno.errors.NotFound) return null;
      throw e;
    }
    if (cached?.mtime === mtime) return cached;
    const body = await Deno.readFile(url);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", body));
    const hash = btoa(String.fromCharCode(...digest.slice(0, 16))).replace(/=+$/, "");
    return (cached = { mtime, body, gzip: await gzip(body), etag: `"${hash}"` });
  };
}

/** True when an If-None-Match header names one of these ETags (weak comparison, `*` too). */
export function matchesEtag(header: string | undefined, etags: string[]): boolean {
  if (!header) return false;
  return header.split(",").some((t) => {
    const tag = t.trim().replace(/^W\//, "");
    return tag === "*" || etags.includes(tag);
  });
}

/** True when the client takes gzip (and did not refuse it with q=0). */
const takesGzip = (accept: string | undefined) =>
  /(^|,)\s*(gzip|\*)\s*(;\s*q=(0?\.\d*[1-9]|1(\.0*)?)\s*)?(,|$)/i.test(accept ?? "");

export function scriptRoutes(_s: Services) {
  const app = new Hono<AppEnv>();
  for (const name of FILES) {
    const load = loader(name);
    app.on(["GET", "HEAD"], "/" + name, async (c) => {
      const file = await load();
      if (!file) {
        throw new DomainError("NOT_FOUND", `${name} is not built yet: run deno task build.`);
      }
      const zipped = takesGzip(c.req.header("accept-encoding"));
      const gzTag = file.etag.replace(/"$/, '-gz"');
      const headers: Record<string, string> = {
        "Access-Control-Allow-Origin": "*",
        "Cache-Control": CACHE_CONTROL,
        ETag: zipped ? gzTag : file.etag,
        Vary: "Accept-Encoding",
        "Cross-Origin-Resource-Policy": "cross-origin",
        "X-Content-Type-Options": "nosniff",
      };
      if (matchesEtag(c.req.header("if-none-match"), [file.etag, gzTag])) {
        return new Response(null, { status: 304, headers });
      }
      headers["Content-Type"] = name.endsWith(".json")
        ? "application/json"
        : "text/javascript; charset=utf-8";
      if (zipped) headers["Content-Encoding"] = "gzip";
      const body = zipped ? file.gzip : file.body;
      if (c.req.method === "HEAD") {
        headers["Content-Length"] = String(body.byteLength);
        return new Response(null, { headers });
      }
      return new Response(body, { headers });
    });
  }
  return app;
}
