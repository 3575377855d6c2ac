/**
 * Evaluation sets whose judgments are derived mechanically from a site's own structure
 * (nobody wrote them for the engine), in the shared formats (evaluate.py, score_answers.py):
 * git-doc (manual pages' NAME lines, gitfaq's questions), GNU gettext's and diffutils' Texinfo
 * manuals (their general index: entry → the page it points to), Exim's specification (its
 * nested back-of-book indexes), the Linux man pages (NAME lines), the Debian FAQ (DocBook: every heading
 * that asks a question → its page, and its section's text as the gold answer) and ikiwiki's
 * own site (a wiki with a blog of tips: its generated lists, link text → the page listed).
 */

/** A derived set before it is written: judgments, their typo variants, FAQ questions. */
export interface Derived {
  plain: Judgment[];
  faq: FaqItem[];
}

interface Judgment {
  id: string;
  query: string;
  relevant: string[];
  grades: Record<string, number>;
  kind: string;
}

interface FaqItem {
  id: string;
  query: string;
  page: string;
  gold: string;
}

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  ndash: "–",
  mdash: "—",
  hellip: "…",
};

/** A fragment's text: tags out, entities read, spaces folded. */
export const text = (html: string) =>
  html.replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, " ").replace(/<[^>]+>/g, " ")
    .replace(
      /&(#x?[0-9a-f]+|[a-z]+);/gi,
      (m, e: string) =>
        e[0] === "#"
          ? String.fromCodePoint(parseInt(e.slice(e[1] === "x" ? 2 : 1), e[1] === "x" ? 16 : 10))
          : ENTITIES[e] ?? m,
    ).replace(/\s+/g, " ").replace(/ ([,.;:?!)])/g, "$1").trim();

/** One typing error, always the same: the longest word's two middle letters swapped. */
export function typo(query: string): string | null {
  const words = query.split(" ");
  let at = -1;
  words.forEach((w, i) => {
    if (/^[a-z]{5,}$/.test(w) && (at < 0 || w.length > words[at].length)) at = i;
  });
  if (at < 0) return null;
  const w = words[at], m = Math.floor(w.length / 2);
  if (w[m - 1] === w[m]) return null;
  words[at] = w.slice(0, m - 1) + w[m] + w[m - 1] + w.slice(m + 1);
  return words.join(" ");
}

/** The typo variant of each judgment that has one. */
export const typos = (plain: Judgment[]) =>
  plain.flatMap((j) => {
    const q = typo(j.query);
    return q ? [{ ...j, query: q }] : [];
  });

const judgment = (prefix: string, i: number, query: string, pages: string[], kind: string) => ({
  id: `${prefix}${String(i).padStart(3, "0")}`,
  query,
  relevant: pages,
  grades: Object.fromEntries(pages.map((p) => [p, 2])),
  kind,
});

/** At most `n` of a sorted list, evenly spaced (the same ones every run). */
const spread = <T>(all: T[], n: number) =>
  all.length <= n ? all : Array.from({ length: n }, (_, i) => all[Math.floor(i * all.length / n)]);

const htmlFiles = async (root: string) => {
  const out: string[] = [];
  for await (const e of Deno.readDir(root)) {
    if (e.isFile && e.name.endsWith(".html")) out.push(e.name);
  }
  return out.sort();
};

/**
 * git-doc (asciidoc, not Sphinx): a manual page's NAME line ("git-commit - Record changes
 * to the repository") gives a query (its description) and the page it names; gitfaq's
 * definition list gives the FAQ (each term that ends in "?" is a question, its definition
 * the gold answer).
 */
export async function gitDoc(root: string): Promise<Derived> {
  const byQuery = new Map<string, string[]>();
  for (const name of await htmlFiles(root)) {
    const html = await Deno.readTextFile(`${root}/${name}`);
    const m = /<h2>NAME<\/h2>\s*<div class="sectionbody">\s*<p>([\s\S]*?)<\/p>/.exec(html);
    const desc = m ? text(m[1]).split(/ - /).slice(1).join(" - ") : "";
    if (desc.length < 8) continue;
    byQuery.set(desc, [...(byQuery.get(desc) ?? []), `/${name}`]);
  }
  const plain = [...byQuery].sort(([a], [b]) => a < b ? -1 : 1)
    .map(([query, pages], i) => judgment("git", i, query, pages, "name"));
  const faqHtml = await Deno.readTextFile(`${root}/gitfaq.html`);
  const faq = [...faqHtml.matchAll(/<dt class="hdlist1">([\s\S]*?)<\/dt>\s*<dd>([\s\S]*?)<\/dd>/g)]
    .map((m) => ({ q: text(m[1]), gold: text(m[2]) }))
    .filter((x) => x.q.endsWith("?") && x.gold.length >= 40)
    .map((x, i) => ({
      id: `faq${String(i).padStart(3, "0")}`,
      query: x.q,
      page: "/gitfaq.html",
      gold: x.gold.slice(0, 4000),
    }));
  return { plain, faq };
}

/** A Texinfo manual's index nodes: the pages whose title names an index. */
export async function texinfoIndexPages(root: string, prefix: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of await htmlFiles(root)) {
    if (!name.startsWith(prefix)) continue;
    const title = /<title>([^<]*)<\/title>/.exec(await Deno.readTextFile(`${root}/${name}`));
    if (title && /\bIndex\b/.test(text(title[1]))) out.push(name);
  }
  return out;
}

/**
 * A Texinfo manual (texi2html, or makeinfo's one page a node): each entry of its general
 * index (the index page whose title `general` matches: "file format, ‘.po’" →
 * gettext_3.html#SEC16) is a query (the entry's words, quotes and commas left out) whose
 * relevant pages are the pages its entries of that text point to; 300 at most, spread
 * evenly over the sorted entries.
 */
export async function texinfoManual(
  root: string,
  { prefix, general }: { prefix: string; general: RegExp },
): Promise<Derived> {
  const byQuery = new Map<string, Set<string>>();
  for (const name of await texinfoIndexPages(root, prefix)) {
    const html = await Deno.readTextFile(`${root}/${name}`);
    const title = text(/<title>([^<]*)<\/title>/.exec(html)![1]);
    if (!general.test(title)) continue;
    const row = /<tr><td><\/td><td valign="top"><a href="([^"#]+)[^"]*">([\s\S]*?)<\/a><\/td>/g;
    for (const m of html.matchAll(row)) {
      const entry = text(m[2]);
      const query = entry.replace(/[‘’“”,]/g, " ").replace(/\s+/g, " ").trim();
      if (query.length < 2) continue;
      const pages = byQuery.get(query) ?? new Set();
      pages.add(`/${m[1]}`);
      byQuery.set(query, pages);
    }
  }
  const entries = [...byQuery].sort(([a], [b]) => a < b ? -1 : 1);
  const plain = spread(entries, 300).map(([query, pages], i) =>
    judgment("texi", i, query, [...pages].slice(0, 5), query.includes(" ") ? "phrase" : "term")
  );
  return { plain, faq: [] };
}

/**
 * A Sphinx site's back-of-book index (genindex.html), read as the shared sets were made: an
 * API entry ("render() (jinja2.Template method)", "Undefined (class in jinja2)") is a query of
 * its name, a module entry ("jinja2.sandbox module") of its dotted name, and any other entry
 * of its words; the pages its links point to (anchors dropped) are relevant. 300 at most,
 * spread evenly over the sorted entries.
 */
export async function sphinxIndex(root: string): Promise<Derived> {
  const html = await Deno.readTextFile(`${root}/genindex.html`);
  const byQuery = new Map<string, { pages: Set<string>; kind: string }>();
  const add = (query: string, page: string, kind: string) => {
    if (query.length < 2 || /^_/.test(query)) return;
    const have = byQuery.get(query) ?? { pages: new Set<string>(), kind };
    have.pages.add(`/${page}`);
    byQuery.set(query, have);
  };
  // An entry's query and kind: an API name, a module's dotted name, or its words.
  const read = (entry: string) => {
    const api = /^([\w.]+)(?:\(\))? \([^)]*\)$/.exec(entry);
    const module = /^([\w.]+) module$/.exec(entry);
    if (api || module) return { query: (api ?? module)![1], kind: "api" };
    return { query: entry.replace(/[;,()]/g, " ").replace(/\s+/g, " ").trim(), kind: "term" };
  };
  // Nested lists: a sub-entry ("(jinja2.Context method)", "module", a term's sub-term) is
  // read with the entry above it.
  const parents: { query: string; kind: string }[] = [];
  let depth = 0;
  const token = /<(\/?)ul>|<li>\s*(?:<a href="([^"#]+)[^"]*">([\s\S]*?)<\/a>|([^<]+))/g;
  for (const m of html.matchAll(token)) {
    if (m[0].endsWith("ul>")) {
      depth += m[1] ? -1 : 1;
      continue;
    }
    const entry = text(m[3] ?? m[4] ?? "");
    const parent = depth > 1 ? parents[depth - 2] : undefined;
    let e = read(entry);
    if (parent && entry.startsWith("(")) e = parent;
    else if (parent && entry === "module") e = { query: parent.query, kind: "api" };
    else if (parent) e = { query: `${parent.query} ${e.query}`, kind: "term+sub" };
    parents[depth - 1] = e;
    if (m[2]) add(e.query, m[2], e.kind);
  }
  const entries = [...byQuery].sort(([a], [b]) => a < b ? -1 : 1);
  const plain = spread(entries, 300).map(([query, { pages, kind }], i) =>
    judgment("sphinx", i, query, [...pages].slice(0, 5), kind)
  );
  return { plain, faq: [] };
}

/**
 * A manual's back-of-book index written as nested definition lists (`<dt>` an entry, its
 * `<dd>` the links, a nested `<dl>` its sub-entries), as DocBook-derived manuals print it:
 * each entry is a query of its words (a sub-entry read with the entry above it: "retry" then
 * "final cutoff" → "retry final cutoff"), its links' pages (anchors dropped) relevant; 300 at
 * most, spread evenly over the sorted entries of every index page in `files`.
 */
export async function nestedDlIndex(root: string, files: string[]): Promise<Derived> {
  const byQuery = new Map<string, { pages: Set<string>; kind: string }>();
  const token = /<(\/?)dl>|<dt>([\s\S]*?)<\/dt>|<a href="([^"#]+)[^"]*"/g;
  for (const file of files) {
    const html = await Deno.readTextFile(`${root}/${file}`);
    const entries: string[] = [];
    let depth = 0;
    for (const m of html.matchAll(token)) {
      if (m[0].endsWith("dl>")) {
        depth += m[1] ? -1 : 1;
        entries.length = Math.max(0, depth);
        continue;
      }
      if (m[2] !== undefined) {
        entries[depth - 1] = text(m[2]).replace(/[;,()]/g, " ").replace(/\s+/g, " ").trim();
        entries.length = depth;
        continue;
      }
      const query = entries.filter(Boolean).join(" ");
      if (!/\w\w/.test(query) || !m[3].endsWith(".html")) continue;
      const have = byQuery.get(query) ??
        { pages: new Set<string>(), kind: depth > 1 ? "term+sub" : "term" };
      have.pages.add(`/${m[3]}`);
      byQuery.set(query, have);
    }
  }
  const entries = [...byQuery].sort(([a], [b]) => a < b ? -1 : 1);
  const plain = spread(entries, 300).map(([query, { pages, kind }], i) =>
    judgment("dl", i, query, [...pages].slice(0, 5), kind)
  );
  return { plain, faq: [] };
}

/**
 * A collection of manual pages made into a site as a man-page site would be (mandoc's
 * HTML, one page each, an index page listing their names): each page's NAME line
 * ("open, openat, creat - open and possibly create a file") gives a query (its description)
 * and the page it names. `sources` are troff pages (gzipped or not); links and `.so`
 * stand-ins are left out (they repeat a page). Writes the site into `out`.
 */
export async function manPages(sources: string[], out: string): Promise<Derived> {
  const byQuery = new Map<string, string[]>();
  const listed: string[] = [];
  for (const src of sources) {
    if ((await Deno.lstat(src)).isSymlink) continue;
    const troff = await new Response(
      src.endsWith(".gz")
        ? (await Deno.open(src)).readable.pipeThrough(new DecompressionStream("gzip"))
        : (await Deno.open(src)).readable,
    ).text();
    if (/^\.so\s/m.test(troff.slice(0, 4000)) && troff.length < 4000) continue;
    const run = await new Deno.Command("mandoc", {
      args: ["-Thtml"],
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const w = run.stdin.getWriter();
    await w.write(new TextEncoder().encode(troff));
    await w.close();
    const html = new TextDecoder().decode((await run.output()).stdout);
    const m = /id="NAME"[\s\S]*?<p class="Pp">([\s\S]*?)<\/p>/.exec(html);
    if (!m) continue;
    const name = src.split("/").pop()!.replace(/\.gz$/, "") + ".html";
    await Deno.writeTextFile(`${out}/${name}`, html);
    listed.push(name);
    const desc = text(m[1]).split(/ [-\u2014] /).slice(1).join(" - ");
    if (desc.length < 8) continue;
    byQuery.set(desc, [...(byQuery.get(desc) ?? []), `/${name}`]);
  }
  const links = listed.sort().map((n) => `<li><a href="${n}">${n.replace(/\.html$/, "")}</a></li>`);
  await Deno.writeTextFile(
    `${out}/index.html`,
    `<!doctype html><html lang="en"><head><title>Manual pages</title></head><body>` +
      `<h1>Manual pages</h1><ul>${links.join("")}</ul></body></html>`,
  );
  const plain = [...byQuery].sort(([a], [b]) => a < b ? -1 : 1)
    .map(([query, pages], i) => judgment("man", i, query, pages, "name"));
  return { plain, faq: [] };
}

const HEAD = /<(h[1-6])\b[^>]*>([\s\S]*?)<\/\1>/gi;

/**
 * A FAQ manual (DocBook chunks, one chapter a page): every heading that ends in "?" is a
 * question (its number, "1.2.", left out); relevance judges its page for it, and the FAQ
 * takes the text up to the next heading of the same or a higher level (or the page's
 * navigation footer) as the gold answer, as the shared sets' extract_faq.py does.
 */
export async function docbookFaq(root: string, pages: RegExp): Promise<Derived> {
  const plain: Judgment[] = [], faq: FaqItem[] = [];
  for (const name of (await htmlFiles(root)).filter((n) => pages.test(n))) {
    const html = await Deno.readTextFile(`${root}/${name}`);
    const end = html.search(/<div class="navfooter"/);
    const main = end < 0 ? html : html.slice(0, end);
    const heads = [...main.matchAll(HEAD)].map((m) => ({
      start: m.index,
      end: m.index + m[0].length,
      level: Number(m[1][1]),
      title: text(m[2]).replace(/^(?:[\d.]+|[A-Z]\.[\d.]*)\s+/, ""),
    }));
    heads.forEach((h, i) => {
      if (!h.title.endsWith("?")) return;
      const next = heads.slice(i + 1).find((o) => o.level <= h.level);
      const gold = text(main.slice(h.end, next?.start ?? main.length));
      if (gold.length < 40) return;
      plain.push(judgment("q", plain.length, h.title, [`/${name}`], "question"));
      faq.push({
        id: `faq${String(faq.length).padStart(3, "0")}`,
        query: h.title.slice(0, 600),
        page: `/${name}`,
        gold: gold.slice(0, 4000),
      });
    });
  }
  return { plain, faq };
}

/** A generated list's entries (ikiwiki's map and archive directives): link, then its text. */
const LISTED = [
  /<a href="([^"#]+)" class="mapitem">([^<]+)<\/a>/g,
  /<a href="([^"#]+)">([^<]+)<\/a><br \/>\s*<span class="archivepagedate">/g,
];

/**
 * A wiki's generated lists (ikiwiki): the pages whose body holds a map (`class="map"`) or a
 * blog archive (`class="archivepage"`), except where a page documents the directive by
 * showing one (its own page is not an index of the site). Paths relative to the root.
 */
export async function wikiListPages(root: string, exclude: RegExp): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(`${root}${dir}`)) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory) await walk(path);
      else if (e.name.endsWith(".html") && !exclude.test(path)) {
        const html = await Deno.readTextFile(`${root}${path}`);
        if (/<div class="(?:map|archivepage)">/.test(html)) out.push(path);
      }
    }
  };
  await walk("");
  return out.sort();
}

/**
 * A wiki with a blog (ikiwiki's own site): each entry of its generated lists (the blog's
 * archive of tips, the plugin directory, the tag pages, the site map) is a query, the entry's
 * link text as a visitor reads it (a post's title, a plugin's name), whose relevant pages
 * are the pages entries of that text link to; 300 at most, spread evenly over the sorted entries.
 * The lists themselves are left out of the crawl (`skip` matches them and whatever else the
 * site's server refuses), as the other sets' index pages are, and only pages a crawler can
 * then index (`indexable`) are judged.
 */
export async function wikiLists(
  root: string,
  start: string,
  lists: string[],
  skip: RegExp,
): Promise<Derived> {
  const crawled = await indexable(root, start, skip);
  const byQuery = new Map<string, Set<string>>();
  for (const list of lists) {
    const html = await Deno.readTextFile(`${root}${list}`);
    const body = html.slice(html.indexOf('id="content"'), html.indexOf('id="footer"'));
    for (const m of LISTED.flatMap((re) => [...body.matchAll(re)])) {
      const path = decodeURIComponent(new URL(m[1], `http://x${list}`).pathname);
      const query = text(m[2]);
      if (query.length < 2 || !crawled.has(path)) continue;
      byQuery.set(query, (byQuery.get(query) ?? new Set()).add(path));
    }
  }
  const entries = [...byQuery].sort(([a], [b]) => a < b ? -1 : 1);
  const plain = spread(entries, 300).map(([query, pages], i) =>
    judgment("wiki", i, query, [...pages].slice(0, 5), query.includes(" ") ? "phrase" : "term")
  );
  return { plain, faq: [] };
}

/**
 * The pages of a static site a crawler can index: reached by its links from `start` with
 * the pages `skip` matches left out, and not marked noindex (as ikiwiki marks its help pages).
 */
export async function indexable(root: string, start: string, skip: RegExp): Promise<Set<string>> {
  const seen = new Set([start]), todo = [start], out = new Set<string>();
  while (todo.length) {
    const page = todo.pop()!;
    const html = await Deno.readTextFile(`${root}${page}`).catch(() => "");
    if (!html) continue;
    if (!/<meta name="robots" content="[^"]*noindex/i.test(html)) out.add(page);
    for (const m of html.matchAll(/<a\b[^>]*\bhref="([^"#?]+)/g)) {
      const url = new URL(m[1], `http://x${page}`);
      if (url.host !== "x" || !url.pathname.endsWith(".html")) continue;
      const path = decodeURIComponent(url.pathname);
      if (seen.has(path) || skip.test(path)) continue;
      seen.add(path);
      todo.push(path);
    }
  }
  return out;
}
