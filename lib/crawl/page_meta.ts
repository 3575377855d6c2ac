/**
 * What a page says of itself as a whole (title, language, description, robots flags, base,
 * canonical URL, JSON-LD, link targets and filters), read from the same tokenizer events as
 * its text (extract.ts).
 */
import { squash } from "../search/engine/mod.ts";
import { cutFilters, type PageFilters } from "../sites/filters.ts";

export type Attribs = Record<string, string>;
/** A page's filters, when it declares any. */
export type MetaFilters = { filters?: PageFilters };
const WEB = new Set(["http:", "https:"]);
const FILTER_META = "sitesearch:filter:";

/** Title, language, description, robots, base, canonical and link targets of the whole page. */
export class MetaReader {
  title = "";
  h1 = "";
  lang = "";
  description?: string;
  ogDescription?: string;
  noindex = false;
  nofollow = false;
  baseHref?: string;
  canonical?: string;
  hrefs: string[] = [];
  #depth = 0;
  /** Depth of the open <svg>/<math>: their <title> and <a> are not the page's. */
  #foreignAt = 0;
  #capture: { field: "title" | "h1"; at: number; text: string } | null = null;
  /** JSON-LD blocks (schema.org data: an FAQPage's questions and answers). */
  jsonLd: string[] = [];
  #ld: { at: number; text: string } | null = null;
  /** Filters as read: `<meta name="sitesearch:filter:NAME">` and `data-sitesearch-filter`. */
  #filters: [string, string][] = [];
  /** Open elements with `data-sitesearch-filter`: their text is the value. */
  #filterAt: { name: string; at: number; text: string }[] = [];

  open(name: string, a: Attribs): void {
    this.#depth++;
    if (this.#foreignAt) return;
    const filter = a["data-sitesearch-filter"];
    // Bounded: a page of thousands of them keeps only the first few anyway (cutFilters).
    if (filter !== undefined && this.#filters.length + this.#filterAt.length < 100) {
      this.#filterAt.push({ name: filter, at: this.#depth, text: "" });
    }
    switch (name) {
      case "svg":
      case "math":
        this.#foreignAt = this.#depth;
        break;
      case "html":
        this.lang ||= a.lang ?? a["xml:lang"] ?? "";
        break;
      case "title":
      case "h1":
        if (!this.#capture && !this[name]) {
          this.#capture = { field: name, at: this.#depth, text: "" };
        }
        break;
      case "base":
        this.baseHref ??= a.href;
        break;
      case "script":
        if (/^\s*application\/ld\+json\s*$/i.test(a.type ?? "")) {
          this.#ld = { at: this.#depth, text: "" };
        }
        break;
      case "link":
        if (a.href !== undefined && /(?:^|\s)canonical(?:\s|$)/i.test(a.rel ?? "")) {
          this.canonical ??= a.href;
        }
        break;
      case "a":
        // Same-document references ("#top", "") would only point back at this page.
        if (a.href && !a.href.trim().startsWith("#")) this.hrefs.push(a.href);
        break;
      case "meta":
        this.#meta(a);
        break;
    }
  }

  text(data: string): void {
    if (this.#capture) this.#capture.text += data;
    for (const f of this.#filterAt) if (f.text.length < 1000) f.text += data;
    if (this.#ld && this.#ld.text.length < 1_000_000) this.#ld.text += data;
  }

  close(): void {
    if (this.#foreignAt === this.#depth) this.#foreignAt = 0;
    if (this.#ld?.at === this.#depth) {
      this.jsonLd.push(this.#ld.text);
      this.#ld = null;
    }
    if (this.#capture?.at === this.#depth) {
      this[this.#capture.field] = squash(this.#capture.text);
      this.#capture = null;
    }
    if (this.#filterAt.at(-1)?.at === this.#depth) {
      const { name, text } = this.#filterAt.pop()!;
      this.#filters.push([name, text]);
    }
    this.#depth--;
  }

  /** The page's filters within FILTER_LIMITS (the first ones kept), as `{ filters }` if any. */
  filters(): MetaFilters {
    const filters = cutFilters(this.#filters);
    return filters ? { filters } : {};
  }

  #meta(a: Attribs): void {
    const name = (a.name ?? a.property ?? "").trim().toLowerCase();
    const content = a.content ?? "";
    if (name.startsWith(FILTER_META)) {
      this.#filters.push([(a.name ?? a.property ?? "").trim().slice(FILTER_META.length), content]);
    } else if (name === "description") this.description ??= content;
    else if (name === "og:description") this.ogDescription ??= content;
    else if (name === "robots" || name === "googlebot") {
      const words = content.toLowerCase().split(/[\s,]+/);
      this.noindex ||= words.includes("noindex") || words.includes("none");
      this.nofollow ||= words.includes("nofollow") || words.includes("none");
    }
  }
}

/** Resolves a URL reference to an absolute http(s) URL without fragment, else null. */
export function webUrl(ref: string, base: URL | undefined): string | null {
  const url = URL.parse(ref.trim(), base);
  if (!url || !WEB.has(url.protocol)) return null;
  url.hash = "";
  return url.href;
}

/** "en-US" → "en"; anything that is not a language subtag → "". */
export function primaryLang(tag: string): string {
  const primary = tag.trim().toLowerCase().split(/[-_]/)[0];
  return /^[a-z]{2,3}$/.test(primary) ? primary : "";
}
