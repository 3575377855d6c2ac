/**
 * Pages in Deno KV. A page's metadata is one value; its body is stored in chunks
 * (a KV value holds at most 64 KiB), keyed by content hash so a half-written
 * update never mixes two versions. Every change bumps the site's index version
 * and logs the changed URL, which is how every instance's search index catches up.
 */
import { busy, DomainError } from "../errors.ts";
import { sha256Hex } from "./keys.ts";
import { capList, checkWrite, KV_LIMITS, valueBytes } from "../storage/kv_limits.ts";
import { changeMarks, readMarked, type Stamp, withMark } from "../storage/change_marks.ts";
import { normalFilters, type PageFilters } from "./filters.ts";

/** A section of a page: its heading (a line of the body where it starts) and anchor ("" if none). */
export interface PageSection {
  heading: string;
  anchor: string;
}

export interface PageInput {
  url: string;
  title: string;
  description?: string;
  body: string;
  lang?: string;
  /** Section headings, searched as their own field (a long page's answer is often one). */
  headings?: string[];
  /** Sections in reading order; when given, `headings` are theirs. */
  sections?: PageSection[];
  /** Share of the text in code blocks, from a crawl (a source listing is near 1). */
  codeShare?: number;
  /** The page's own filters (lib/sites/filters.ts), within FILTER_LIMITS. */
  filters?: PageFilters;
}

export interface PageMeta {
  url: string;
  title: string;
  description: string;
  lang: string;
  headings?: string[];
  sections?: PageSection[];
  codeShare?: number;
  filters?: PageFilters;
  hash: string;
  chars: number;
  chunks: number;
  updatedAt: string;
}

export interface Page extends PageMeta {
  body: string;
}

export interface IndexVersion {
  version: number;
  pages: number;
}

export type UpsertStatus = "created" | "updated" | "unchanged";

/**
 * Bodies a caller just stored, by URL with the hash they were stored under: a catch-up of this
 * process's index takes a page's body from here when its stored hash is the same (the same
 * text, whatever instance wrote since), instead of reading the chunks back from KV.
 */
export type WrittenBodies = Map<string, { hash: string; body: string }>;

/** 15,000 UTF-16 units take at most 30,000 bytes in KV (V8 stores two bytes a unit), 60,000 as UTF-8. */
const CHUNK_CHARS = 15_000;
/** Room kept in the metadata value for the fields added after sections and headings are cut. */
const META_SPARE = 512;

/**
 * The metadata value with as many sections (or headings), in order, as fit one KV value
 * beside the other fields; a page with thousands of headings keeps its first ones.
 */
function fitMeta(meta: PageMeta): PageMeta {
  const { sections, headings, ...rest } = meta;
  const room = KV_LIMITS.valueBytes - META_SPARE - valueBytes(rest);
  if (sections) return { ...rest, sections: capList(sections, room).kept };
  if (headings) return { ...rest, headings: capList(headings, room).kept };
  return meta;
}

/** Metadata as read: `headings` derived from `sections` where those are kept. */
function withHeadings<T extends PageMeta>(meta: T): T {
  if (!meta.sections) return meta;
  return { ...meta, headings: [...new Set(meta.sections.map((s) => s.heading))].filter(Boolean) };
}

/** Log entries outlive any instance that could still need them; older gaps mean a rebuild. */
const LOG_TTL_MS = 7 * 24 * 3600_000;

/** Splits text into chunks without cutting a surrogate pair in two. */
export function chunkText(text: string, size = CHUNK_CHARS): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length;) {
    let end = Math.min(text.length, i + size);
    const c = text.charCodeAt(end - 1);
    if (end < text.length && c >= 0xd800 && c <= 0xdbff) end--;
    out.push(text.slice(i, end));
    i = end;
  }
  return out.length ? out : [""];
}

/** The key of a store's (`prefix`) index version of a site: it exists once the site has had pages. */
export const versionKey = (prefix: string, site: string) => [prefix + "ver", site];

/**
 * Page storage for all sites. `prefix` names the key space, so uploaded
 * documents ("doc") are kept the same way as pages ("page") yet apart from them.
 */
export class PageStore {
  constructor(private kv: Deno.Kv, private now: () => number, readonly prefix = "page") {}

  private metaKey = (site: string, url: string) => [this.prefix, site, url];
  private bodyPrefix = (site: string, url: string, hash: string) => [
    this.prefix + "body",
    site,
    url,
    hash,
  ];
  private versionKey = (site: string) => versionKey(this.prefix, site);
  private logKey = (site: string, v: number) => [this.prefix + "log", site, v];

  async version(site: string): Promise<IndexVersion> {
    return (await this.kv.get<IndexVersion>(this.versionKey(site))).value ??
      { version: 0, pages: 0 };
  }

  /** The site's index version and its change mark, in one read (storage/change_marks.ts). */
  async marked(site: string): Promise<IndexVersion & { stamp: Stamp }> {
    const [[ver], stamp] = await readMarked(this.kv, site, [this.versionKey(site)]);
    return { ...((ver.value as IndexVersion | null) ?? { version: 0, pages: 0 }), stamp };
  }

  /** When an index version read at `checkedAt` is renewed to by the site's mark (ChangeMarks.renewed). */
  renewed(site: string, stamp: Stamp | undefined, checkedAt: number, clock: () => number) {
    return changeMarks(this.kv).renewed(site, stamp, checkedAt, clock);
  }

  /**
   * Stores a page unless identical; refuses a new page beyond `maxPages`. `written`, when
   * given, is told the body stored (see WrittenBodies).
   */
  async upsert(
    site: string,
    input: PageInput,
    maxPages: number,
    written?: WrittenBodies,
  ): Promise<UpsertStatus> {
    const filters = normalFilters(input.filters);
    // Cut to what fits one value as metadata will hold it (a placeholder hash and date);
    // the filters (at most FILTER_LIMITS) are kept whole, sections make room for them.
    const fitted = fitMeta({
      url: input.url,
      title: input.title,
      description: input.description ?? "",
      lang: input.lang ?? "",
      ...(input.sections?.length
        ? { sections: input.sections.map((x) => ({ heading: x.heading, anchor: x.anchor })) }
        : input.headings?.length
        ? { headings: input.headings }
        : {}),
      ...(input.codeShare ? { codeShare: input.codeShare } : {}),
      ...(filters ? { filters } : {}),
      hash: "0".repeat(64),
      chars: 0,
      chunks: 0,
      updatedAt: new Date(0).toISOString(),
    });
    const sections = fitted.sections?.length ? fitted.sections : undefined;
    const headings = fitted.headings?.length ? fitted.headings : undefined;
    const page: Omit<PageMeta, "hash" | "chars" | "chunks" | "updatedAt"> = {
      url: input.url,
      title: input.title,
      description: input.description ?? "",
      lang: input.lang ?? "",
      // Headings are kept once: as sections when those are given.
      ...(sections ? { sections } : headings ? { headings } : {}),
      ...(input.codeShare ? { codeShare: input.codeShare } : {}),
      ...(filters ? { filters } : {}),
    };
    // Pages without headings or sections hash as they did before those existed.
    const hash = await sha256Hex(
      JSON.stringify([
        page.title,
        page.description,
        page.lang,
        input.body,
        ...(page.headings ? [page.headings] : []),
        ...(page.sections ? [{ sections: page.sections }] : []),
        ...(page.codeShare ? [{ codeShare: page.codeShare }] : []),
        ...(page.filters ? [{ filters: page.filters }] : []),
      ]),
    );
    const chunks = chunkText(input.body);
    let bodyWritten = false;
    for (let attempt = 0; attempt < 50; attempt++) {
      const [old, ver] = await this.kv.getMany<[PageMeta, IndexVersion]>([
        this.metaKey(site, input.url),
        this.versionKey(site),
      ]);
      if (old.value?.hash === hash) return "unchanged";
      const v = ver.value ?? { version: 0, pages: 0 };
      if (!old.value && v.pages >= maxPages) {
        throw new DomainError(
          "PLAN_FEATURE_UNAVAILABLE",
          `The site holds ${v.pages} pages, the most its plan allows. Remove pages or upgrade.`,
          { param: "pages" },
        );
      }
      // Large bodies go in first, in their own commits; the metadata switch below publishes them.
      if (chunks.length > 1 && !bodyWritten) {
        for (let i = 0; i < chunks.length; i += 10) {
          const op = this.kv.atomic();
          chunks.slice(i, i + 10).forEach((c, j) =>
            op.set([...this.bodyPrefix(site, input.url, hash), i + j], c)
          );
          await op.commit();
        }
        bodyWritten = true;
      }
      const meta: PageMeta = {
        ...page,
        hash,
        chars: input.body.length,
        chunks: chunks.length,
        updatedAt: new Date(this.now()).toISOString(),
      };
      const next = { version: v.version + 1, pages: v.pages + (old.value ? 0 : 1) };
      checkWrite(this.metaKey(site, input.url), meta);
      const op = withMark(this.kv.atomic(), site).check(old, ver)
        .set(this.metaKey(site, input.url), meta)
        .set(this.versionKey(site), next)
        .set(this.logKey(site, next.version), input.url, { expireIn: LOG_TTL_MS });
      if (chunks.length === 1) op.set([...this.bodyPrefix(site, input.url, hash), 0], chunks[0]);
      if ((await op.commit()).ok) {
        written?.set(input.url, { hash, body: input.body });
        if (old.value) await this.deleteBody(site, input.url, old.value.hash);
        return old.value ? "updated" : "created";
      }
    }
    throw busy("The site's pages are busy. Retry.");
  }

  /** Removes a page; false when there was none. */
  async remove(site: string, url: string): Promise<boolean> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const [old, ver] = await this.kv.getMany<[PageMeta, IndexVersion]>([
        this.metaKey(site, url),
        this.versionKey(site),
      ]);
      if (!old.value) return false;
      const v = ver.value ?? { version: 0, pages: 1 };
      const next = { version: v.version + 1, pages: Math.max(0, v.pages - 1) };
      const ok = await withMark(this.kv.atomic(), site).check(old, ver)
        .delete(this.metaKey(site, url))
        .set(this.versionKey(site), next)
        .set(this.logKey(site, next.version), url, { expireIn: LOG_TTL_MS })
        .commit();
      if (ok.ok) {
        await this.deleteBody(site, url, old.value.hash);
        return true;
      }
    }
    throw busy("The site's pages are busy. Retry.");
  }

  private async deleteBody(site: string, url: string, hash: string) {
    const keys: Deno.KvKey[] = [];
    for await (const e of this.kv.list({ prefix: this.bodyPrefix(site, url, hash) })) {
      keys.push(e.key);
    }
    // A 2 M-character body is 134 chunks: a few commits rather than one round trip each.
    for (let i = 0; i < keys.length; i += 500) {
      const op = this.kv.atomic();
      for (const key of keys.slice(i, i + 500)) op.delete(key);
      await op.commit();
    }
  }

  /** One page's metadata without its body, or null. */
  async meta(site: string, url: string): Promise<PageMeta | null> {
    return (await this.kv.get<PageMeta>(this.metaKey(site, url))).value;
  }

  /** One page with its body, or null; the body from `written` when it holds the stored one. */
  async get(site: string, url: string, written?: WrittenBodies): Promise<Page | null> {
    const meta = (await this.kv.get<PageMeta>(this.metaKey(site, url))).value;
    if (!meta) return null;
    const mine = written?.get(url);
    if (mine?.hash === meta.hash) return { ...withHeadings(meta), body: mine.body };
    const parts: string[] = [];
    for await (const e of this.kv.list<string>({ prefix: this.bodyPrefix(site, url, meta.hash) })) {
      parts.push(e.value);
    }
    return { ...withHeadings(meta), body: parts.join("") };
  }

  /** A page of metadata, in URL order, with a cursor for the next. */
  async list(site: string, opts: { cursor?: string; limit: number }) {
    const iter = this.kv.list<PageMeta>({ prefix: [this.prefix, site] }, {
      cursor: opts.cursor,
      limit: opts.limit,
    });
    const pages: PageMeta[] = [];
    for await (const e of iter) pages.push(withHeadings(e.value));
    return { pages, cursor: pages.length === opts.limit ? iter.cursor : null };
  }

  /** Every page's metadata, in URL order. */
  async *metas(site: string): AsyncGenerator<PageMeta> {
    for await (const e of this.kv.list<PageMeta>({ prefix: [this.prefix, site] })) {
      yield withHeadings(e.value);
    }
  }

  /** Every page of a site with its body, for building an index. */
  async *all(site: string): AsyncGenerator<Page> {
    const metas = new Map<string, PageMeta>();
    for await (const e of this.kv.list<PageMeta>({ prefix: [this.prefix, site] })) {
      metas.set(e.value.url, e.value);
    }
    // Bodies come back grouped by URL then hash, chunks in order: join them as they stream.
    let url = "", hash = "", parts: string[] = [];
    const flush = function* () {
      const meta = metas.get(url);
      if (meta && meta.hash === hash && parts.length === meta.chunks) {
        metas.delete(url);
        yield { ...withHeadings(meta), body: parts.join("") };
      }
    };
    for await (const e of this.kv.list<string>({ prefix: [this.prefix + "body", site] })) {
      const [, , u, h] = e.key as [string, string, string, string];
      if (u !== url || h !== hash) {
        yield* flush();
        [url, hash, parts] = [u, h, []];
      }
      parts.push(e.value);
    }
    yield* flush();
  }

  /** URLs changed after `since`, or null when the log no longer reaches back that far. */
  async changesSince(site: string, since: number, until: number): Promise<string[] | null> {
    if (until <= since) return [];
    const urls = new Set<string>();
    let expected = since + 1;
    for await (
      const e of this.kv.list<string>({
        start: this.logKey(site, since + 1),
        end: this.logKey(site, until + 1),
      })
    ) {
      if (e.key[2] !== expected++) return null;
      urls.add(e.value);
    }
    return expected === until + 1 ? [...urls] : null;
  }
}
