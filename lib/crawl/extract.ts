/**
 * HTML page → what the index needs: title, description, language, robots flags,
 * canonical URL, outgoing links, and the readable text split into sections.
 * Pure and synchronous. It streams htmlparser2's tokenizer events instead of
 * building a DOM: on a 5 MB page the DOM alone costs more time and memory than
 * everything else together, and nothing here needs to look backwards.
 */
import { Parser } from "htmlparser2";
import { squash } from "../search/engine/mod.ts";
import type { PageSection } from "../sites/pages.ts";
import { faqEntries, withFaq } from "./faq_jsonld.ts";
import { leadText } from "./lead.ts";
import { type Attribs, type MetaFilters, MetaReader, primaryLang, webUrl } from "./page_meta.ts";

/** A section as extracted: the stored heading and anchor, and its text. */
export interface ExtractedSection extends PageSection {
  text: string;
}

export interface ExtractedPage extends MetaFilters {
  title: string;
  description: string;
  lang: string;
  text: string;
  sections: ExtractedSection[];
  /** Share of the readable letters and digits inside <pre>: near 1 for a source listing. */
  codeShare: number;
  noindex: boolean;
  nofollow: boolean;
  canonical: string | null;
  links: string[];
}

/** Never readable text: code, embedded media, form controls, page chrome. */
// deno-fmt-ignore
const DROP_TAGS = new Set([
  "head", "title", "meta", "link", "script", "style", "noscript", "template", "svg", "math",
  "iframe", "object", "embed", "canvas", "nav", "select", "button", "input", "textarea",
]);
const DROP_ROLES = new Set(["navigation", "banner", "contentinfo"]);
/**
 * Generated documentation marks its chrome with classes, not landmarks: DocBook wraps
 * prev/up/next bars in div.navheader/navfooter, Sphinx puts them in div.related and
 * div.sphinxsidebar and appends a "¶" a.headerlink
 * to every heading; a page's own table of contents (.toc) repeats its headings. Indexed,
 * these repeat on every page and drown the real text. */
const DROP_CLASS_RE =
  /(?:^|\s)(?:navheader|navfooter|sphinxsidebar|related|headerlink|viewcode-link|skip-link|breadcrumbs?|toc)(?:\s|$)/;
/** Ids that name page chrome on sites without landmarks (some themes: #global-nav, #sidebar). */
const DROP_ID_RE =
  /^(?:(?:global|main|site|top)-?nav(?:igation|bar)?|nav(?:bar|igation)?|sidebar|breadcrumbs?|skip-?links?|toc)$/i;
/** "Last update: Nov 11, 2026" and the like: when the page was built, not what it says. */
const LAST_UPDATE_RE = /^(?:last\s+(?:update[ds]?|modified|changed)|updated\s+on)\b.{0,60}$/i;
/** "Skip to content" links. */
const SKIP_RE = /^\s*skip\b/i;
/** Blocks that may be a bar of links (Home | Index « previous | up | next »). */
const BAR_TAGS = new Set(["div", "p", "td", "header", "footer", "section", "ul", "ol"]);
const [MAX_BAR_CHARS, HIDDEN_STYLE_RE] = [200, /display\s*:\s*none|visibility\s*:\s*hidden/i];
/** Elements that end a line, so words in neighbouring blocks never run together. */
// deno-fmt-ignore
const BLOCKS = new Set([
  "address", "article", "aside", "blockquote", "body", "br", "caption", "center", "dd", "details",
  "dialog", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2",
  "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "html", "legend", "li", "main", "menu", "ol",
  "p", "pre", "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
]);
const HEADING_RE = /^h[1-6]$/;
/**
 * htmlparser2 keeps its open elements with Array#unshift, so each tag costs time in
 * proportion to the nesting depth: a 5 MB page of unclosed <div>s would take minutes.
 * Reading stops where a page nests deeper than Blink's parser ever builds (512); the
 * text before that point is kept. The parser is fed in chunks so it can stop early.
 */
const [MAX_DEPTH, CHUNK] = [512, 64 * 1024];

/** Extracts metadata, main text, sections and links from one HTML page fetched from `baseUrl`. */
export function extractPage(html: string, baseUrl: string): ExtractedPage {
  const meta = new MetaReader();
  const body = new TextReader(URL.parse(baseUrl));
  let depth = 0;
  let stopped = false;
  const parser = new Parser({
    onopentag(name, attribs) {
      if (stopped || (stopped = ++depth > MAX_DEPTH)) return;
      meta.open(name, attribs);
      body.open(name, attribs);
    },
    ontext(data) {
      if (stopped) return;
      meta.text(data);
      body.text(data);
    },
    onclosetag() {
      if (stopped) return;
      depth--;
      meta.close();
      body.close();
    },
  });
  for (let i = 0; i < html.length && !stopped; i += CHUNK) parser.write(html.slice(i, i + CHUNK));
  parser.end();
  const base = (meta.baseHref !== undefined && URL.parse(meta.baseHref, baseUrl)) ||
    URL.parse(baseUrl) || undefined;
  const read = body.result();
  return {
    title: meta.title || meta.h1,
    description: squash(meta.description ?? meta.ogDescription ?? leadText(read.sections)),
    lang: primaryLang(meta.lang),
    ...read,
    ...withFaq(read, faqEntries(meta.jsonLd)),
    noindex: meta.noindex,
    nofollow: meta.nofollow,
    canonical: meta.canonical === undefined ? null : webUrl(meta.canonical, base),
    links: [...new Set(meta.hrefs.map((h) => webUrl(h, base)).filter((u) => u !== null))],
    ...meta.filters(),
  };
}

interface Frame {
  name: string;
  /** "skip": starts an excluded subtree; "inert": inside one; "in": readable. */
  state: "skip" | "inert" | "in";
  main: boolean;
  /** Counters when the element opened, to judge it at its close (see `#isBar`). */
  at?: Tally;
  /** An <a href>: where its text starts in the current line, and whether it goes home. */
  link?: { line: number; lines: number; home: boolean; fragment: boolean };
}

interface Tally {
  lines: number;
  marks: number;
  chars: number;
  linkChars: number;
  links: number;
  homeLinks: number;
}

interface Mark {
  heading: string;
  anchor: string;
  /** Index in `lines` of the heading's first line, and of its section's first line. */
  headingAt: number;
  bodyAt: number;
}

interface Span {
  frame: Frame;
  lineStart: number;
  markStart: number;
  lineEnd?: number;
  markEnd?: number;
}

/**
 * Readable text, one block per line, with heading marks. The whole page is read; the spans
 * of the first main landmark and of the articles are noted, and `result` slices the content
 * root out of the lines afterwards, so one pass serves both cases. */
class TextReader {
  #lines: string[] = [];
  #marks: Mark[] = [];
  #line = "";
  #stack: Frame[] = [];
  #skipping = false;
  #pre = 0;
  #mainDepth = 0;
  #sectionDepth = 0;
  #main?: Span;
  #article?: Span;
  #articles = 0;
  // Anchor candidates: ids of open elements and the last <a id|name>, each stamped with
  // its entry order so only those met since the previous heading count for the next one.
  #seq = 0;
  #fenceSeq = 0;
  #openIds: { frame: Frame; id: string; seq: number }[] = [];
  #lastA = { id: "", seq: 0 };
  #heading: { frame: Frame; at: number; own: string; inner: string; before: string } | null = null;
  // Letters and digits read, those inside links, links and links to a home page so far.
  #chars = 0;
  #linkChars = 0;
  #links = 0;
  #homeLinks = 0;
  #inLink = 0;
  #preChars = 0;

  constructor(private base: URL | null) {}

  #tally(): Tally {
    return {
      lines: this.#lines.length,
      marks: this.#marks.length,
      chars: this.#chars,
      linkChars: this.#linkChars,
      links: this.#links,
      homeLinks: this.#homeLinks,
    };
  }

  /** A link to the site's (or this part of the site's) home page: a logo or site name. */
  #goesHome(href: string): boolean {
    const url = this.base && URL.parse(href.trim(), this.base);
    if (!url || url.origin !== this.base!.origin) return false;
    const m = url.pathname.match(/^(.*\/)(?:index\.(?:html?|php))?$/);
    return m !== null && this.base!.pathname.startsWith(m[1]);
  }

  open(name: string, a: Attribs): void {
    const frame: Frame = { name, state: "inert", main: false };
    this.#stack.push(frame);
    if (this.#skipping) return;
    if (excluded(name, a, this.#mainDepth > 0, this.#sectionDepth > 0)) {
      frame.state = "skip";
      this.#skipping = true;
      return;
    }
    frame.state = "in";
    frame.main = name === "main" || name === "article" || roleOf(a) === "main";
    const id = a.id?.trim() ?? "";
    const seq = ++this.#seq;
    if (BLOCKS.has(name)) this.#flush();
    if (BAR_TAGS.has(name) || HEADING_RE.test(name)) frame.at = this.#tally();
    if (name === "a" && a.href !== undefined) {
      const home = this.#goesHome(a.href);
      frame.link = {
        line: this.#line.length,
        lines: this.#lines.length,
        home,
        fragment: a.href.trim().startsWith("#"),
      };
      this.#inLink++;
      this.#links++;
      if (home) this.#homeLinks++;
    }
    if (name === "pre") this.#pre++;
    if (name === "section") this.#sectionDepth++;
    if (frame.main) {
      this.#mainDepth++;
      const span = { frame, lineStart: this.#lines.length, markStart: this.#marks.length };
      if (name === "article" && ++this.#articles === 1) this.#article = span;
      if (name !== "article") this.#main ??= span;
    }
    const heading = this.#heading;
    if (heading && !heading.inner) heading.inner = id || (name === "a" ? a.name?.trim() ?? "" : "");
    if ((HEADING_RE.test(name) || (name === "dt")) && !heading) {
      const top = this.#openIds.at(-1);
      const open = top && top.seq > this.#fenceSeq ? top : undefined;
      const last = this.#lastA.seq > this.#fenceSeq ? this.#lastA : undefined;
      const before = (last && (!open || last.seq > open.seq) ? last : open)?.id ?? "";
      this.#heading = { frame, at: this.#lines.length, own: id, inner: "", before };
      this.#fenceSeq = seq;
    }
    if (id) this.#openIds.push({ frame, id, seq });
    if (name === "a" && (id || a.name?.trim())) this.#lastA = { id: id || a.name.trim(), seq };
    // Page-wide wrappers' ids ("docContent", "main") name no section of their own.
    if (name === "html" || name === "body" || (frame.main && name !== "article")) {
      this.#fenceSeq = seq;
    }
  }

  text(data: string): void {
    if (this.#skipping) return;
    const chars = countChars(data);
    this.#chars += chars;
    if (this.#pre) this.#preChars += chars;
    if (this.#inLink) this.#linkChars += chars;
    if (!this.#pre) {
      this.#line += data;
      return;
    }
    // Keep a listing's lines apart; everywhere else source newlines are just spaces.
    const parts = data.split("\n");
    this.#line += parts[0];
    for (let i = 1; i < parts.length; i++) {
      this.#flush();
      this.#line += parts[i];
    }
  }

  close(): void {
    const frame = this.#stack.pop();
    if (!frame || frame.state === "inert") return;
    if (frame.state === "skip") {
      this.#skipping = false;
      return;
    }
    const name = frame.name;
    if (BLOCKS.has(name)) this.#flush();
    if (frame.link) {
      this.#inLink--;
      // "Skip to content": a same-page link that only moves the focus.
      const l = frame.link;
      if (l.fragment && l.lines === this.#lines.length && SKIP_RE.test(this.#line.slice(l.line))) {
        this.#line = this.#line.slice(0, l.line);
      }
    }
    if (frame.at && this.#isChrome(frame)) {
      this.#lines.length = frame.at.lines;
      if (this.#heading?.frame === frame) this.#heading = null;
    }
    if (name === "pre") this.#pre--;
    if (name === "section") this.#sectionDepth--;
    if (frame.main) this.#mainDepth--;
    for (const span of [this.#main, this.#article]) {
      if (span?.frame === frame) {
        span.lineEnd = this.#lines.length;
        span.markEnd = this.#marks.length;
      }
    }
    if (this.#openIds.at(-1)?.frame === frame) this.#openIds.pop();
    const heading = this.#heading;
    if (heading?.frame === frame) {
      const text = this.#lines.slice(heading.at).join(" ");
      // A definition term is a heading only where it can be linked to (<dt id>).
      const anchor = name === "dt"
        ? heading.own || heading.inner
        : heading.own || heading.inner || heading.before;
      if (text && (name !== "dt" || anchor) && !LAST_UPDATE_RE.test(text)) {
        // The heading stands as one line of its own where its section starts.
        this.#lines.length = heading.at;
        this.#lines.push(text);
        this.#marks.push({ heading: text, anchor, headingAt: heading.at, bodyAt: heading.at + 1 });
      }
      this.#heading = null;
    }
  }

  /**
   * Whether a closed element was page chrome, read after all: a short bar of links with
   * nothing but separators between them (Home | Index, « previous | up | next »), or a
   * heading that is only a link to the home page (the site's name on every page).
   */
  #isChrome(frame: Frame): boolean {
    const at = frame.at!;
    if (this.#marks.length !== at.marks || frame.main) return false;
    if (this.#main && this.#main.lineStart >= at.lines) return false;
    const chars = this.#chars - at.chars, linkChars = this.#linkChars - at.linkChars;
    const links = this.#links - at.links;
    if (chars === 0 || chars !== linkChars) return false;
    if (HEADING_RE.test(frame.name)) return links === 1 && this.#homeLinks - at.homeLinks === 1;
    const list = frame.name === "ul" || frame.name === "ol";
    return links >= (list ? 3 : 2) && chars <= MAX_BAR_CHARS;
  }

  /** The content root's text and sections: main landmark, else a lone article, else all. */
  result(): { text: string; sections: ExtractedSection[]; codeShare: number } {
    this.#flush();
    const lines = this.#lines;
    const span = this.#main ?? (this.#articles === 1 ? this.#article : undefined);
    const start = span?.lineStart ?? 0;
    const end = span?.lineEnd ?? lines.length;
    const lead: Mark = { heading: "", anchor: "", headingAt: start, bodyAt: start };
    const marks = [lead, ...this.#marks.slice(span?.markStart ?? 0, span?.markEnd)];
    const sections = marks.map((m, i) => ({
      heading: m.heading,
      anchor: m.anchor,
      text: lines.slice(m.bodyAt, marks[i + 1]?.headingAt ?? end).join("\n"),
    })).filter((s, i) => i > 0 || s.text);
    return {
      text: lines.slice(start, end).filter((l) => !LAST_UPDATE_RE.test(l)).join("\n"),
      sections,
      codeShare: this.#chars ? Math.round((this.#preChars / this.#chars) * 100) / 100 : 0,
    };
  }

  #flush(): void {
    const s = squash(this.#line);
    if (s) this.#lines.push(s);
    this.#line = "";
  }
}

/**
 * Whether an element is left out of the readable text. `inMain` and `inSection` follow
 * HTML-AAM: a header/footer inside main, article or section belongs to that content (an
 * article's title and byline); only page-level ones are banner/contentinfo chrome.
 */
function excluded(name: string, a: Attribs, inMain: boolean, inSection: boolean): boolean {
  if (DROP_TAGS.has(name)) return true;
  if ((name === "header" || name === "footer") && !inMain && !inSection) return true;
  if (name === "aside" && !inMain) return true;
  if (a.hidden !== undefined || a["data-nosnippet"] !== undefined) return true;
  if (a["aria-hidden"]?.trim().toLowerCase() === "true") return true;
  if (a.role !== undefined && DROP_ROLES.has(roleOf(a))) return true;
  if (a.style !== undefined && HIDDEN_STYLE_RE.test(a.style)) return true;
  if (a.id !== undefined && DROP_ID_RE.test(a.id.trim())) return true;
  return a.class !== undefined && DROP_CLASS_RE.test(a.class);
}

const LETTERS_OR_DIGITS = /[\p{L}\p{N}]+/gu;
/** Letters and digits in a text (what makes it more than separators). */
function countChars(text: string): number {
  let n = 0;
  for (const m of text.matchAll(LETTERS_OR_DIGITS)) n += m[0].length;
  return n;
}

/** The element's ARIA role: the first token wins, as in browsers. */
function roleOf(a: Attribs): string {
  return a.role?.trim().toLowerCase().split(/\s+/)[0] ?? "";
}
