/**
 * What the crawler reads off a response (media type, encoding, charset, X-Robots-Tag)
 * and how it names what it crawls: the site a URL belongs to and a page's path.
 */
import { normalizeHost } from "./net/guard.ts";
import { decodeInSlices } from "../slices.ts";

export const USER_AGENT = "SiteSearchBot/1.0 (+https://sitesearch.example/bot)";

/** The site a URL belongs to: host name and explicit port (http and https of a host are one site). */
export function siteKeyOf(u: URL): string {
  return `${normalizeHost(u.hostname)}|${u.port}`;
}

/** A page's site-relative path: path and query, no fragment. */
export function pathOf(u: URL): string {
  return u.pathname + u.search;
}

/** A response's Content-Type without parameters, lower case; "" when absent. */
export function mediaType(res: Response): string {
  return (res.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
}

/** HTML, or no type at all (then the bytes decide, see isBinary). */
export function isHtmlType(t: string): boolean {
  return t === "" || t === "text/html" || t === "application/xhtml+xml";
}

/** An XML or gzip type, which may hold a sitemap (XHTML is a page). */
export function isSitemapType(t: string): boolean {
  return (t.endsWith("/xml") || t.endsWith("+xml") || t.includes("gzip")) &&
    t !== "application/xhtml+xml";
}

/** Bytes that start with gzip's magic number. */
export function isGzip(b: Uint8Array): boolean {
  return b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;
}

/** A body that cannot be HTML: NUL bytes near the start, or a PDF's signature. */
export function isBinary(b: Uint8Array): boolean {
  const head = b.subarray(0, 1024);
  return head.includes(0) || new TextDecoder().decode(head.subarray(0, 5)) === "%PDF-";
}

/**
 * Decodes HTML by its Content-Type charset, else a <meta charset> near the start, else UTF-8;
 * in slices (a 5 MB page decoded in one call held the event loop ~20-30 ms).
 */
export function decodeHtml(body: Uint8Array, contentType: string | null): Promise<string> {
  const fromHeader = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? "")?.[1];
  const head = new TextDecoder("latin1").decode(body.subarray(0, 1024));
  const fromMeta = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1];
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(fromHeader ?? fromMeta ?? "utf-8");
  } catch {
    decoder = new TextDecoder(); // a label TextDecoder does not know
  }
  return decodeInSlices(body, decoder);
}

/** Text cut to `max` UTF-16 units without splitting a surrogate pair. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const c = text.charCodeAt(max - 1);
  return text.slice(0, c >= 0xd800 && c <= 0xdbff ? max - 1 : max);
}

/** Rules of X-Robots-Tag that carry a value after a colon, unlike a user-agent scope. */
const VALUED_RULES = new Set([
  "unavailable_after",
  "max-snippet",
  "max-image-preview",
  "max-video-preview",
]);

/** Reads X-Robots-Tag: rules for everyone, or scoped to us ("sitesearchbot: noindex"). */
export function xRobotsTag(value: string | null): { noindex: boolean; nofollow: boolean } {
  const out = { noindex: false, nofollow: false };
  if (!value) return out;
  const ours = USER_AGENT.split("/")[0].toLowerCase();
  let scope: string | null = null;
  for (const raw of value.split(",")) {
    let token = raw.trim().toLowerCase();
    const m = /^([a-z][\w-]*)\s*:\s*(.*)$/.exec(token);
    if (m && !VALUED_RULES.has(m[1])) [scope, token] = [m[1], m[2]];
    if (scope !== null && scope !== ours) continue;
    for (const w of token.split(/\s+/)) {
      if (w === "noindex" || w === "none") out.noindex = true;
      if (w === "nofollow" || w === "none") out.nofollow = true;
    }
  }
  return out;
}
