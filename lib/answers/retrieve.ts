/**
 * Retrieval for answers, on sections: the site's best pages (and documents, on plans
 * with them) are cut into sections (a heading, the text under it, its anchor), every
 * section is scored against the question's content words (heading matches weigh most),
 * and the best sections are handed on, best first, each numbered by its page or
 * document. A follow-up is scored with the conversation's earlier questions and
 * sources too, weighted towards the new question.
 */
import { looksLikeCode, terms } from "./extractive.ts";
import { type Section, type SectionedPage, splitSections } from "./sections.ts";
import { PLANS } from "../limits/plans.ts";
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";
import type { SourceText } from "./summarizer.ts";
import { squash, WORD_RE } from "../search/mod.ts";
import { Slices } from "../slices.ts";

export type SourceRef =
  | { type: "page"; title: string; url: string }
  | { type: "document"; title: string; documentId: string }
  | { type: "external"; label: string };

/** What the conversation so far adds to a follow-up's retrieval. */
export interface RetrievalContext {
  /** Earlier questions, oldest first. */
  questions: string[];
  /** Pages and documents (url or document id) the earlier answers used. */
  sources: string[];
}

export interface Retrieved {
  /** The chosen sections, best first; `n` numbers their page or document. */
  texts: SourceText[];
  /** One reference per page or document, `refs[n - 1]` for `n`. */
  refs: SourceRef[];
  /** False when nothing on the site matches the question well enough to answer it. */
  matched: boolean;
}

/** The best of a very long page is nearly always early; reading further costs time. */
const MAX_TEXT_PER_SOURCE = 20_000;
const PAGES = 16;
/** Characters of a section scored and handed on (a whole answer is at most 1,600). */
const SECTION_CHARS = 2_500;
/** Sections scored in full, after a cheap first pass over every candidate's sections. */
const SCORED_SECTIONS = 32;
const DOCUMENTS = 4;
const MAX_SECTIONS = 4;
/** Share of the best section's score another section needs to be handed on too. */
const NEXT_SECTION_SHARE = 0.5;
/** Share of the question's weight the best section must cover to count as an answer. */
const MIN_COVER = 0.5;
/** A follow-up's earlier questions count this much beside its own words. */
const EARLIER_WEIGHT = 0.3;
const HEADING_HIT = 1.5;
const TITLE_HIT = 0.3;
const K1 = 1.2;

interface Candidate {
  key: string;
  /** What the page says it is about (its description): counts like its title. */
  about: string;
  ref: SourceRef;
  title: string;
  rank: number;
  usedBefore: boolean;
  sections: Section[];
}

interface Scored {
  c: Candidate;
  section: Section;
  score: number;
  cover: number;
}

/** The question's own words that say what it is about, for the site search. */
function searchWords(text: string): string {
  // Compounds stay whole ("pre-existing", "SETTINGS_MODULE"): the index keeps them as one token.
  return text.split(/\s+/).map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ""))
    .filter((w) => terms(w).length > 0).join(" ");
}

/** Term weights: the new question's words 1, earlier questions' less (all, if it has none). */
function weights(question: string, earlier: string[]): Map<string, number> {
  const w = new Map<string, number>();
  const asked = terms(question);
  for (const t of earlier.flatMap(terms)) w.set(t, asked.length ? EARLIER_WEIGHT : 1);
  for (const t of asked) w.set(t, 1);
  return w;
}

/** Lowercased words of a text, function words included (for phrasing alone). */
const allWords = (text: string) => new Set(text.toLowerCase().match(WORD_RE) ?? []);

function overlap(a: Set<string>, b: Set<string>): number {
  if (!a.size || !b.size) return 0;
  let n = 0;
  for (const t of a) if (b.has(t)) n++;
  return n / (a.size + b.size - n);
}

/**
 * How much a section reads like prose that can answer: a list of short lines (a table of
 * contents, a menu) or a block of code answers nothing in words.
 */
function form(text: string): number {
  const lines = text.split("\n", 60).filter((l) => l.trim());
  if (!lines.length) return 0;
  const words = lines.reduce((n, l) => n + l.split(" ").length, 0);
  const code = lines.filter(looksLikeCode).length / lines.length;
  const prose = lines.filter((l) => /[.!]["”’)]?$/u.test(l)).length / lines.length;
  const list = lines.length >= 4 && words / lines.length < 14 && prose < 0.3 ? 0.4 : 1;
  return list * (1 - 0.6 * code);
}

const NO_TERMS = new Set<string>();

/** Whether `a` comes right before `b` somewhere in the words. */
function adjacent(words: string[], a: string, b: string): boolean {
  for (let i = words.indexOf(a); i >= 0 && i < words.length - 1; i = words.indexOf(a, i + 1)) {
    if (words[i + 1] === b) return true;
  }
  return false;
}

/** A candidate's title and description terms, worked out once. */
const pageTermsOf = new WeakMap<object, string[]>();
function pageTerms(c: { title: string; about: string }): string[] {
  let ts = pageTermsOf.get(c);
  if (!ts) pageTermsOf.set(c, ts = terms(`${c.title} ${c.about}`));
  return ts;
}

/** The numbered sections and references that answer one question. */
export async function retrieve(
  s: Services,
  site: Site,
  question: string,
  context: RetrievalContext = { questions: [], sources: [] },
): Promise<Retrieved> {
  const earlier = context.questions.slice(-2);
  const weight = weights(question, earlier);
  if (weight.size === 0) return { texts: [], refs: [], matched: false };
  const slices = new Slices();
  const candidates = await gather(s, site, question, earlier, context.sources, slices);

  // Stemming every section is the costly part: a cheap first pass (heading words, and the
  // text merely containing a query stem) keeps the sections worth scoring properly.
  const roots = [...weight].map(([t, w]) => ({
    root: t.slice(0, Math.max(2, t.length - 1)),
    t,
    w,
  }));
  const rough: { c: Candidate; section: Section; head: Set<string>; rough: number }[] = [];
  for (const c of candidates) {
    await slices.pause();
    for (const section of c.sections) {
      if (!section.text) continue;
      const lowHead = section.heading.toLowerCase();
      const head = roots.some((r) => lowHead.includes(r.root))
        ? new Set(terms(section.heading))
        : NO_TERMS;
      const lower = section.text.slice(0, SECTION_CHARS).toLowerCase();
      let score = 0;
      for (const { root, t, w } of roots) {
        score += w * ((head.has(t) ? 2 : 0) + (lower.includes(root) ? 1 : 0));
      }
      if (score > 0) rough.push({ c, section, head, rough: score / (1 + 0.02 * c.rank) });
    }
  }
  rough.sort((a, b) => b.rough - a.rough);
  const rows = [];
  for (const { c, section: whole, head } of rough.slice(0, SCORED_SECTIONS)) {
    await slices.pause();
    // An answer is read from a section's start: a long one's first part is what counts.
    const section = { ...whole, text: cutAtLine(whole.text, SECTION_CHARS) };
    const words = terms(section.text);
    const tf = new Map<string, number>();
    for (const t of words) tf.set(t, (tf.get(t) ?? 0) + 1);
    const page = pageTerms(c);
    // Heading, text and page words in order, for phrases of the question said as such.
    const said = [page, terms(section.heading), words];
    rows.push({
      c,
      section,
      head,
      tf,
      len: words.length,
      title: new Set(page),
      said,
      form: form(section.text),
    });
  }
  if (!rows.length) return { texts: [], refs: [], matched: false };

  // Section-level IDF: a word in every section says little about which one answers.
  const df = new Map<string, number>();
  for (const r of rows) {
    for (const t of weight.keys()) {
      if (r.head.has(t) || r.tf.has(t)) df.set(t, (df.get(t) ?? 0) + 1);
    }
  }
  const rawIdf = (t: string) => Math.log(1 + (rows.length + 1) / ((df.get(t) ?? 0) + 0.5));
  // A word no section holds (a word the site never uses) weighs like the rarest word some section
  // does hold: alone it cannot veto what the rest of the question finds. All unknown: no match.
  const known = [...weight.keys()].filter((t) => df.has(t)).map(rawIdf);
  const unknownIdf = known.length ? Math.max(...known) : rawIdf("");
  const idf = (t: string) => df.has(t) ? rawIdf(t) : unknownIdf;
  let total = 0, totalAsked = 0;
  for (const [t, w] of weight) {
    total += w * idf(t);
    if (w === 1) totalAsked += idf(t);
  }
  const avgLen = rows.reduce((n, r) => n + r.len, 0) / rows.length || 1;
  const askedTerms = new Set(terms(question));
  const asked = terms(question);
  const askedPairs = asked.slice(1).map((t, i) => [asked[i], t] as const);
  const phrasing = allWords(question);

  const scored: Scored[] = rows.map((r) => {
    let score = 0, covered = 0, coveredAsked = 0;
    for (const [t, w] of weight) {
      const tf = r.tf.get(t) ?? 0;
      const head = r.head.has(t);
      const inTitle = r.title.has(t);
      if (!tf && !head && !inTitle) continue;
      const norm = K1 * (0.25 + 0.75 * r.len / avgLen);
      const part = (head ? HEADING_HIT : 0) + (tf ? (tf * (K1 + 1)) / (tf + norm) : 0) +
        (inTitle ? TITLE_HIT : 0);
      score += w * idf(t) * part;
      // A word only in the page title half answers: the section is on the page's subject.
      const share = tf || head ? 1 : 0.5;
      covered += w * idf(t) * share;
      if (w === 1) coveredAsked += idf(t) * share;
    }
    const cover = total ? covered / total : 0;
    // A heading that names what was asked marks the section that answers it.
    const named = overlap(r.head, askedTerms);
    // Between headings that name the question's words, one phrased like it reads closer; function
    // words alone never lift a heading that names nothing.
    const phrased = named > 0 ? overlap(allWords(r.section.heading), phrasing) : 0;
    const phrases = askedPairs.length
      ? askedPairs.filter(([a, b]) => r.said.some((ws) => adjacent(ws, a, b))).length /
        askedPairs.length
      : 0;
    score *= (0.3 + cover) ** 2 * (1 + 1.5 * named) * (1 + 0.3 * phrased) * (1 + 0.5 * phrases);
    score *= r.form;
    score *= 1 / (1 + 0.05 * r.c.rank); // the site search's ranking of the page still counts
    if (r.c.usedBefore) score *= 1.3; // a follow-up stays with the conversation's pages
    return {
      c: r.c,
      section: r.section,
      score,
      cover: totalAsked ? coveredAsked / totalAsked : cover,
    };
  }).filter((x) => x.score > 0).sort((a, b) => b.score - a.score);

  const best = scored[0];
  if (!best || best.cover < MIN_COVER) return { texts: [], refs: [], matched: false };
  const chosen = [
    best,
    ...scored.slice(1).filter((x) => x.score >= NEXT_SECTION_SHARE * best.score),
  ]
    .slice(0, MAX_SECTIONS);

  await addAnchors(s, site, chosen);
  // Number pages and documents in the order their best section comes.
  const numbers = new Map<string, number>();
  const refs: SourceRef[] = [];
  const texts = chosen.map((x) => {
    let n = numbers.get(x.c.key);
    if (n === undefined) {
      numbers.set(x.c.key, n = refs.length + 1);
      refs.push(withAnchor(x.c.ref, x.section.anchor));
    }
    return {
      n,
      title: x.c.title,
      about: x.c.about,
      heading: x.section.heading,
      anchor: x.section.anchor,
      text: x.section.text,
      score: x.score / best.score,
    };
  });
  return { texts, refs, matched: true };
}

/** Anchors from the page records (`sections`), which the search index does not keep. */
async function addAnchors(s: Services, site: Site, chosen: Scored[]) {
  const need = chosen.filter((x) =>
    x.c.ref.type === "page" && !x.section.anchor && x.section.heading
  );
  const urls = [...new Set(need.map((x) => (x.c.ref as { url: string }).url))];
  const metas = await Promise.all(urls.map((u) => s.pages.meta(site.id, u)));
  const byUrl = new Map(urls.map((u, i) => [u, metas[i] as SectionedPage | null]));
  for (const x of need) {
    const list = byUrl.get((x.c.ref as { url: string }).url)?.sections;
    if (!list) continue;
    // The same heading may recur on a page: take its occurrence in reading order.
    const nth = x.c.sections.filter((y) =>
      y.heading === x.section.heading && y.index < x.section.index
    )
      .length;
    const found = list.filter((y) => squash(y.heading) === x.section.heading)[nth];
    if (found?.anchor) x.section = { ...x.section, anchor: found.anchor };
  }
}

/** The text up to `max` characters, cut at a line end where there is one. */
function cutAtLine(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = text.lastIndexOf("\n", max);
  return text.slice(0, end > max / 2 ? end : max);
}

/** A page's reference pointing at the section (`#anchor`), when it has one. */
function withAnchor(ref: SourceRef, anchor: string): SourceRef {
  if (ref.type !== "page" || !anchor || ref.url.includes("#")) return ref;
  return { ...ref, url: `${ref.url}#${encodeURIComponent(anchor)}` };
}

/** Candidate pages and documents, with their sections. */
async function gather(
  s: Services,
  site: Site,
  question: string,
  earlier: string[],
  used: string[],
  slices: Slices,
): Promise<Candidate[]> {
  const own = searchWords(question);
  const withContext = earlier.length ? searchWords([question, ...earlier].join(" ")) : "";
  const docsToo = PLANS[site.plan].documents;
  // Pages an owner's curation hides for this question are never a source (lib/levers).
  const hidden = await s.levers.hiddenFor(site.id, question);
  const lists = await Promise.all([
    own ? s.indexes.top(site.id, own, PAGES, MAX_TEXT_PER_SOURCE) : [],
    withContext ? s.indexes.top(site.id, withContext, PAGES, MAX_TEXT_PER_SOURCE) : [],
    docsToo && own ? s.documentIndexes.top(site.id, own, DOCUMENTS, MAX_TEXT_PER_SOURCE) : [],
    docsToo && withContext
      ? s.documentIndexes.top(site.id, withContext, DOCUMENTS, MAX_TEXT_PER_SOURCE)
      : [],
  ]);
  const out = new Map<string, Candidate>();
  const texts = new Map<Candidate, typeof lists[number][number]>();
  const add = (kind: "page" | "document", list: typeof lists[number]) =>
    list.forEach((d, rank) => {
      if (kind === "page" && hidden.has(d.id)) return;
      const key = `${kind}:${d.id}`;
      const have = out.get(key);
      if (have) return void (have.rank = Math.min(have.rank, rank));
      const c: Candidate = {
        key,
        ref: kind === "page"
          ? { type: "page", title: d.title, url: d.id }
          : { type: "document", title: d.title, documentId: d.id },
        title: d.title,
        about: d.description,
        rank,
        usedBefore: used.includes(d.id),
        sections: [],
      };
      out.set(key, c);
      texts.set(c, d);
    });
  add("page", lists[0]);
  add("page", lists[1]);
  add("document", lists[2]);
  add("document", lists[3]);
  for (const [c, d] of texts) {
    await slices.pause();
    c.sections = splitSections(d);
  }
  // The pages an earlier answer used stay in the running for a follow-up.
  const missing = used.filter((id) =>
    !out.has(`page:${id}`) && !out.has(`document:${id}`) && !hidden.has(id)
  )
    .slice(0, 3);
  const pages = await Promise.all(missing.map((id) => s.pages.get(site.id, id)));
  pages.forEach((p) => {
    if (!p) return;
    out.set(`page:${p.url}`, {
      key: `page:${p.url}`,
      ref: { type: "page", title: p.title, url: p.url },
      title: p.title,
      about: p.description,
      rank: PAGES,
      usedBefore: true,
      sections: splitSections({ ...p, body: p.body.slice(0, MAX_TEXT_PER_SOURCE) }),
    });
  });
  return [...out.values()];
}
