/** Sitemaps (sitemaps.org): gunzipping the body and reading its <loc> entries. */
import { Parser } from "htmlparser2";
import { decodeInSlices, SLICE_MS, Slices } from "../slices.ts";

export interface SitemapResult {
  kind: "urlset" | "index";
  urls: { loc: string; lastmod?: string }[];
}

/** The sitemaps.org protocol's limits: 50,000 entries and 50 MiB uncompressed per file. */
export const MAX_SITEMAP_ENTRIES = 50_000;
export const MAX_SITEMAP_BYTES = 50 * 1024 * 1024;

/**
 * Elements a sitemap nests at most: urlset > url > loc is three, the news and video extensions
 * five. htmlparser2 keeps its open elements with Array#unshift (extract.ts), so a body of
 * 50 MiB nesting ever deeper would hold the event loop for minutes: deeper is not a sitemap.
 */
const MAX_DEPTH = 32;
/** Characters parsed at a time (~20 ms before the parser is compiled, ~0.3 ms after). */
const CHUNK = 16 * 1024;

/**
 * Reads a <urlset> or <sitemapindex> in slices, so other work runs while a large one is read;
 * throws "not_a_sitemap" for any other root element or one nesting past MAX_DEPTH. Reading
 * stops once MAX_SITEMAP_ENTRIES are kept.
 */
export async function parseSitemap(xml: string): Promise<SitemapResult> {
  let kind: SitemapResult["kind"] | null = null;
  let prefix = ""; // the root's namespace prefix, e.g. "sm:" in <sm:urlset>
  const urls: SitemapResult["urls"] = [];
  const stack: string[] = [];
  let entry: { loc: string; lastmod: string } | null = null;
  let field: "loc" | "lastmod" | null = null;

  // Only root > url|sitemap > loc|lastmod count, so <image:loc> and friends are ignored.
  const local = (name: string) => (name.startsWith(prefix) ? name.slice(prefix.length) : null);
  const parser = new Parser({
    onopentag(name) {
      if (stack.length >= MAX_DEPTH) throw new Error("not_a_sitemap");
      stack.push(name);
      if (stack.length === 1) {
        const colon = name.indexOf(":");
        prefix = colon >= 0 ? name.slice(0, colon + 1) : "";
        const root = local(name);
        kind = root === "urlset" ? "urlset" : root === "sitemapindex" ? "index" : null;
      } else if (stack.length === 2 && kind) {
        const want = kind === "urlset" ? "url" : "sitemap";
        if (local(name) === want) entry = { loc: "", lastmod: "" };
      } else if (stack.length === 3 && entry) {
        const n = local(name);
        field = n === "loc" || n === "lastmod" ? n : null;
      }
    },
    ontext(text) {
      if (entry && field && stack.length === 3) entry[field] += text;
    },
    onclosetag() {
      stack.pop();
      if (stack.length === 2) field = null;
      if (stack.length === 1 && entry) {
        const loc = entry.loc.trim();
        const lastmod = entry.lastmod.trim();
        if (loc && urls.length < MAX_SITEMAP_ENTRIES) {
          urls.push(lastmod ? { loc, lastmod } : { loc });
        }
        entry = null;
      }
    },
  }, { xmlMode: true, decodeEntities: true });
  const slices = new Slices(SLICE_MS.bulk);
  for (let at = 0; at < xml.length && urls.length < MAX_SITEMAP_ENTRIES; at += CHUNK) {
    parser.write(xml.slice(at, at + CHUNK));
    await slices.pause();
  }
  parser.end();
  if (!kind) throw new Error("not_a_sitemap");
  return { kind, urls };
}

/** Reads a stream into one buffer, throwing "too_large" past `limit` bytes. */
async function readCapped(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      // Stop inflating now: a gzip bomb must not get to fill memory.
      await reader.cancel().catch(() => {});
      throw new Error("too_large");
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** The charset parameter of a Content-Type, when TextDecoder knows it; UTF-8 otherwise. */
function decoderFor(contentType: string | null): TextDecoder {
  const charset = contentType?.match(/charset\s*=\s*"?([\w.:-]+)/i)?.[1];
  try {
    if (charset) return new TextDecoder(charset);
  } catch {
    // Unknown label: sitemaps must be UTF-8 anyway.
  }
  return new TextDecoder();
}

/** Turns a fetched sitemap body into text, gunzipping it if needed, capped at 50 MiB. */
export async function decodeSitemapBody(
  bytes: Uint8Array,
  contentType: string | null,
  _url: string,
): Promise<string> {
  // Only the gzip magic bytes decide. A ".gz" URL or gzip type without them was already
  // inflated by the transport (Content-Encoding: gzip), and inflating it again would fail.
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream()
      .pipeThrough(new DecompressionStream("gzip"));
    return decodeInSlices(await readCapped(stream, MAX_SITEMAP_BYTES), new TextDecoder());
  }
  if (bytes.byteLength > MAX_SITEMAP_BYTES) throw new Error("too_large");
  return decodeInSlices(bytes, decoderFor(contentType));
}

/** A sitemap <lastmod> (W3C datetime) in ms, or undefined when absent or unreadable. */
export function parseLastmod(text: string | undefined): number | undefined {
  if (!text) return undefined;
  const t = Date.parse(text);
  return Number.isNaN(t) ? undefined : t;
}
