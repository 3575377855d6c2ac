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

export class SiteName {
  /** Per page, its affixes (SEP between them; "" when none). */
  private byUrl = new Map<string, string>();
  private counts = new Map<string, number>();

  /** Notes a page's title and declared language ("" when none). */
  add(url: string, title: string, lang = "") {
    this.remove(url);
    const primary = lang.trim().toLowerCase().split(/[-_]/)[0];
    this.note(url, joined([...affixes(title), ...(primary ? [`@${primary}`] : [])]));
  }

  private note(url: string, held: string) {
    this.byUrl.set(url, held);
    for (const a of split(held)) this.counts.set(a, (this.counts.get(a) ?? 0) + 1);
  }

  /** Forgets a page. */
  remove(url: string) {
    for (const a of split(this.byUrl.get(url))) {
      const n = (this.counts.get(a) ?? 1) - 1;
      if (n > 0) this.counts.set(a, n);
      else this.counts.delete(a);
    }
    this.byUrl.delete(url);
  }

  /** The language most pages declare ("" when none does). */
  language(): string {
    let best = "", bestCount = 0;
    for (const [a, n] of this.counts) if (a[0] === "@" && n > bestCount) [best, bestCount] = [a, n];
    return best.slice(1);
  }

  /** Both shared facts, to notice when either changes. */
  key(): string {
    return `${this.current()}\n${this.language()}`;
  }

  /** The shared part (">name" after, "<name" before the rest), or "" when there is none. */
  current(): string {
    let best = "", bestCount = 0;
    for (const [a, n] of this.counts) if (a[0] !== "@" && n > bestCount) [best, bestCount] = [a, n];
    return bestCount >= MIN_PAGES && bestCount * 2 >= this.byUrl.size ? best : "";
  }

  /** What was noted, page by page, to keep in a snapshot (snapshot.ts). */
  entries(): [string, string[]][] {
    return [...this.byUrl].map(([url, held]) => [url, split(held)]);
  }

  /** A SiteName holding what `entries` returned. */
  static from(entries: [string, string[]][]): SiteName {
    const names = new SiteName();
    for (const [url, found] of entries) names.note(url, joined(found));
    return names;
  }

  /** The number of pages noted. */
  get size() {
    return this.byUrl.size;
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
