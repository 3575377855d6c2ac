/**
 * What a site's pages share. The site-name part of page titles ("Request objects —
 * Acme 3.2 documentation"): the part after the last separator (or before the first)
 * that most pages share. It says nothing about any one page, so results and the title
 * field leave it out, and a heading that is nothing but the site name is dropped. And
 * the site's language: the one most pages declare, for the pages that declare none.
 */

/**
 * " | ", " — ", " - ", " · ", " :: ", " » " and the like, with spaces around, and a colon
 * after a word ("Acme manual: 3. Setup"), as a name that heads every page is written.
 */
const SEPARATOR = /\s+(?:[|—–·:»•\-]|::)\s+|(?<=\S):\s+/;
/** Shared by at least half of the pages, and by at least this many. */
const MIN_PAGES = 3;

function affixes(title: string): string[] {
  const parts = title.split(SEPARATOR);
  if (parts.length < 2) return [];
  const first = parts[0].trim(), last = parts[parts.length - 1].trim();
  return [`>${last.toLowerCase()}`, `<${first.toLowerCase()}`];
}

/**
 * Between a page's affixes in the one string it keeps: a string per page rather than an array
 * of three (after the 200-site warm round, the names of the sites held in memory were 60,000
 * objects, a tenth of the heap's, which every full collection marks). An affix holds none:
 * it is taken out of what is noted.
 */
const SEP = "\u0000";
const joined = (found: string[]) => found.map((a) => a.replaceAll(SEP, "")).join(SEP);
const split = (held: string | undefined) => held ? held.split(SEP) : [];

/**
 * What a snapshot keeps of a SiteName: its pages and their affixes side by side (as it holds
 * them), and the counts. A load then reads three arrays, not an array per page, and counts
 * nothing: 2,000 pages' names made a third of a snapshot's decoding when they were replayed.
 */
export interface SavedNames {
  urls: string[];
  held: string[];
  counts: [string, number][];
}

/** The affix most pages share of one kind (a name, or a language), and how many share it. */
interface Leader {
  affix: string;
  count: number;
}

/** Whether an affix is a declared language ("@en") rather than a part of a title. */
const isLanguage = (affix: string) => affix.charCodeAt(0) === 64; // "@"

export class SiteName {
  /** Per page, its affixes (SEP between them; "" when none). */
  private byUrl = new Map<string, string>();
  private counts = new Map<string, number>();
  /**
   * The leading name and language, kept as counts change (null: to be found again). Each
   * page indexed asks for both; finding them by reading every count made an ingest quadratic
   * in its pages (2,400 pages: 11 million entries read, 300 MB of garbage).
   */
  private leaders: { name: Leader | null; language: Leader | null } = {
    name: null,
    language: null,
  };
  /** Pages a snapshot gave, not yet in `byUrl`: made into it when a page comes or goes. */
  private loaded: { urls: string[]; held: string[] } | null = null;

  /** Notes a page's title and declared language ("" when none). */
  add(url: string, title: string, lang = "") {
    const primary = lang.trim().toLowerCase().split(/[-_]/)[0];
    const held = joined([...affixes(title), ...(primary ? [`@${primary}`] : [])]);
    if (this.pages().get(url) === held) return; // a page updated, its title and language kept
    this.remove(url);
    this.note(url, held);
  }

  private note(url: string, held: string) {
    this.pages().set(url, held);
    for (const a of split(held)) {
      const was = this.counts.get(a);
      this.counts.set(a, (was ?? 0) + 1);
      this.counted(a, (was ?? 0) + 1, was === undefined);
    }
  }

  /**
   * Keeps the leader of `affix`'s kind as a scan of the counts would find it: the first (in
   * the Map's order) of those counted most. An affix new to the Map comes last, so it takes
   * the lead only by passing the leader; of two older ones that tie, the Map's order decides
   * (affixes counted most came early, so that read is short); the leader counting fewer is
   * left to a scan.
   */
  private counted(affix: string, count: number, isNew: boolean) {
    const kind = isLanguage(affix) ? "language" : "name";
    const leader = this.leaders[kind];
    if (!leader) return;
    if (affix === leader.affix) {
      if (count > leader.count) leader.count = count;
      else this.leaders[kind] = null;
    } else if (count > leader.count) this.leaders[kind] = { affix, count };
    else if (count === leader.count && !isNew && this.comesFirst(affix, leader.affix)) {
      this.leaders[kind] = { affix, count };
    }
  }

  /** Whether `a` comes before `b` in the counts' order (both are in it). */
  private comesFirst(a: string, b: string): boolean {
    for (const affix of this.counts.keys()) {
      if (affix === a) return true;
      if (affix === b) return false;
    }
    return false;
  }

  /** The leader of a kind, found by reading every count when it is not known. */
  private leader(kind: "name" | "language"): Leader {
    let found = this.leaders[kind];
    if (found) return found;
    found = { affix: "", count: 0 };
    const language = kind === "language";
    for (const [affix, count] of this.counts) {
      if (isLanguage(affix) === language && count > found.count) found = { affix, count };
    }
    return this.leaders[kind] = found;
  }

  /** Forgets a page. */
  remove(url: string) {
    const pages = this.pages();
    for (const a of split(pages.get(url))) {
      const n = (this.counts.get(a) ?? 1) - 1;
      if (n > 0) this.counts.set(a, n);
      else this.counts.delete(a);
      this.counted(a, n, false);
    }
    pages.delete(url);
  }

  /** Every page's affixes by URL, those a snapshot gave included. */
  private pages(): Map<string, string> {
    if (this.loaded) {
      const { urls, held } = this.loaded;
      this.loaded = null;
      for (let i = 0; i < urls.length; i++) this.byUrl.set(urls[i], held[i]);
    }
    return this.byUrl;
  }

  /** The language most pages declare ("" when none does). */
  language(): string {
    return this.leader("language").affix.slice(1);
  }

  /** Both shared facts, to notice when either changes. */
  key(): string {
    return `${this.current()}\n${this.language()}`;
  }

  /** The shared part (">name" after, "<name" before the rest), or "" when there is none. */
  current(): string {
    const { affix, count } = this.leader("name");
    return count >= MIN_PAGES && count * 2 >= this.size ? affix : "";
  }

  /** What was noted, page by page (each page's affixes). */
  entries(): [string, string[]][] {
    return [...this.pages()].map(([url, held]) => [url, split(held)]);
  }

  /** What a snapshot keeps (`from` makes it a SiteName again). */
  saved(): SavedNames {
    const counts = [...this.counts];
    if (this.loaded) return { ...this.loaded, counts };
    return { urls: [...this.byUrl.keys()], held: [...this.byUrl.values()], counts };
  }

  /**
   * A SiteName holding what `saved` returned; or, from a snapshot saved before, what `entries`
   * did (each page's affixes counted again). Throws on anything else.
   */
  static from(saved: SavedNames | [string, string[]][]): SiteName {
    const names = new SiteName();
    if (Array.isArray(saved)) {
      for (const [url, found] of saved) names.note(url, joined(found));
      return names;
    }
    const { urls, held, counts } = saved;
    if (
      !Array.isArray(urls) || !Array.isArray(held) || urls.length !== held.length ||
      !Array.isArray(counts)
    ) {
      throw new Error("site names: not what a snapshot keeps");
    }
    names.loaded = { urls, held };
    for (const [a, n] of counts) names.counts.set(String(a), Number(n));
    return names;
  }

  /** The number of pages noted. */
  get size() {
    return this.loaded ? this.loaded.urls.length : this.byUrl.size;
  }

  /** A title without the shared part; kept whole where nothing else would be left. */
  strip(title: string, name: string): string {
    if (!name) return title;
    const parts = title.split(SEPARATOR);
    if (parts.length < 2) return title;
    const want = name.slice(1);
    if (name[0] === ">" && parts[parts.length - 1].trim().toLowerCase() === want) {
      const m = [...title.matchAll(new RegExp(SEPARATOR, "g"))].at(-1)!;
      return title.slice(0, m.index).trim() || title;
    }
    if (name[0] === "<" && parts[0].trim().toLowerCase() === want) {
      const m = title.match(SEPARATOR)!;
      return title.slice(m.index! + m[0].length).trim() || title;
    }
    return title;
  }

  /** Whether a text is the site name itself. */
  isName(text: string, name: string): boolean {
    return name !== "" && text.trim().toLowerCase() === name.slice(1);
  }
}
