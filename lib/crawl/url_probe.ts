/**
 * A URL no crawl has met, looked at now the way a crawl would judge it (robots.txt, status,
 * redirect, type, noindex, canonical), so "why is this page not searchable?" answers with the
 * page's own reason rather than only "no link leads there". Nothing is stored: the page is
 * indexed only by a crawl or a re-fetch. Bounded like a crawl's fetch, with shorter deadlines.
 */
import { decodeHtml, isBinary, isHtmlType, mediaType, pathOf, xRobotsTag } from "./http.ts";
import { RobotsCache } from "./robots_rules.ts";
import { botFetcher, DEFAULT_TUNING } from "./tuning.ts";
import { ParseError, parsePage } from "../parsing/sandbox.ts";
import type { Services } from "../services.ts";

/** What a probe found: a crawl's reason, or `ok` (a page a crawl would index). */
export interface Probe {
  reason: string;
  /** A redirect's target, or the canonical URL the page names. */
  to?: string;
}

const TUNING = { ...DEFAULT_TUNING, headersTimeoutMs: 5_000, bodyTimeoutMs: 10_000 };

/** Judges `u` as a crawl would, fetching its robots.txt and the page (no redirect followed). */
export async function probeUrl(s: Services, u: URL): Promise<Probe> {
  const fetcher = botFetcher(s.crawl, { concurrency: 1, delayMs: 0 });
  try {
    const robots = await new RobotsCache({ crawl: s.crawl, fetcher, tuning: TUNING }).get(u);
    if (!robots.rules.isAllowed(pathOf(u))) return { reason: "robots" };
    let to: string | undefined;
    const res = await fetcher.fetch(u.href, {
      headers: { Accept: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5" },
      beforeHop: (next) => {
        to = next.href;
        return Promise.resolve("redirect");
      },
      accept: (r) => isHtmlType(mediaType(r)) ? null : "not_html",
      maxBytes: TUNING.maxBodyBytes,
      headersTimeoutMs: TUNING.headersTimeoutMs,
      bodyTimeoutMs: TUNING.bodyTimeoutMs,
      maxRedirects: 1,
    });
    if (!res.ok) {
      return res.reason === "redirect" && to ? { reason: "redirect", to } : { reason: res.reason };
    }
    if (res.status < 200 || res.status >= 300) return { reason: `http_${res.status}` };
    if (isBinary(res.body)) return { reason: "not_html" };
    if (xRobotsTag(res.headers.get("x-robots-tag")).noindex) return { reason: "noindex" };
    const page = await parsePage(
      await decodeHtml(res.body, res.headers.get("content-type")),
      res.url,
    );
    if (page.noindex) return { reason: "noindex" };
    const canonical = page.canonical === null ? null : URL.parse(page.canonical);
    if (canonical && canonical.href !== u.href) return { reason: "canonical", to: canonical.href };
    return { reason: "ok" };
  } catch (err) {
    if (err instanceof ParseError) return { reason: `parse_${err.reason}` };
    throw err;
  } finally {
    await fetcher.close();
  }
}
