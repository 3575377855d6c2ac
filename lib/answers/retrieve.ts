/**
 * Retrieval for answers, through the site search: the question is corrected as search
 * corrects it, the pages (and documents, on plans with them) search ranks best are cut
 * into sections and into the questions an FAQ asks (sections.ts), every section is
 * scored with search's analysis (section_score.ts), and the best sections are handed on,
 * best first, each numbered by its page or document. A follow-up is scored with the
 * conversation's earlier questions and sources too, weighted towards the new question.
 */
import type { SectionedPage } from "./sections.ts";
import { sectionsOf } from "./section_cache.ts";
import {
  type Candidate as Scorable,
  roughRound,
  type Scored,
  scoreRound,
  SECTION_CHARS,
} from "./section_score.ts";
import { mineEquivalences } from "../search/engine/mod.ts";
import { asksLikeQuestion, contentTerms } from "./analysis.ts";
import { PLANS } from "../limits/plans.ts";
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";
import type { SourceText } from "./summarizer.ts";
import { type Expand } from "../search/mod.ts";
import { languageOf, namesAnchor, priorOf, squash } from "../search/engine/mod.ts";
import { SLICE_MS, Slices } from "../slices.ts";

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
  /** The question as answered: the site search's corrections applied, synonyms beside it. */
  question: string;
}

/** The best of a very long page is nearly always early; reading further costs time. */
const MAX_TEXT_PER_SOURCE = 20_000;
const PAGES = 16;
const DOCUMENTS = 4;
/** Pages, of the best ranked, whose sections beyond the part read are looked for by heading. */
const FAR_PAGES = 4;
/** Pages, of the best ranked, read for the names they state for the question's words. */
const STATED_PAGES = 4;
/** Words that say a second name follows. */
const ALSO = /also (?:called|known|referred)|\baka\b/i;
/** Share of the question's words a heading must name to be read from beyond that part. */
const FAR_NAMED = 0.6;
const MAX_SECTIONS = 4;
/** Share of the best section's score another section needs to be handed on too. */
const NEXT_SECTION_SHARE = 0.5;
/** Share of the question's weight the best section must cover to count as an answer. */
const MIN_COVER = 0.5;

interface Candidate extends Scorable {
  ref: SourceRef;
}

/** The question's own words that say what it is about, for the site search. */
function searchWords(text: string): string {
  // Compounds stay whole ("pre-existing", "SETTINGS_MODULE"): the index keeps them as one token.
  // The trailing space: a question is complete, no word of it is a prefix being typed.
  return text.split(/\s+/).map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ""))
    .filter((w) => contentTerms(w).length > 0).join(" ") + " ";
}

const escape = (w: string) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The question with the site search's corrections ("expresso" → "espresso") applied. */
async function corrected(s: Services, site: Site, question: string): Promise<string> {
  const words = searchWords(question);
  if (!words.trim()) return question;
  const { corrections } = await s.indexes.search(site.id, { query: words, perPage: 1 });
  let out = question;
  for (const { from, to } of corrections) out = replaceWord(out, from, to);
  return out;
}

/**
 * A word's character: what `(?<![\p{L}\p{N}_])` rules out under the "iu" flags (U+0345 folds to
 * a letter). Kept out of each correction's pattern: a \p class compiled case-insensitively
 * costs milliseconds.
 */
const WORD_CHAR = /[\p{L}\p{N}_\u0345]/u;
const LOW_SURROGATE = /[\udc00-\udfff]/;

/** Whether the code point ending just before `at` is a word's character. */
function wordBefore(text: string, at: number): boolean {
  if (at <= 0) return false;
  const pair = at > 1 && LOW_SURROGATE.test(text[at - 1]) && text.codePointAt(at - 2)! > 0xffff;
  return WORD_CHAR.test(String.fromCodePoint(text.codePointAt(at - (pair ? 2 : 1))!));
}

/** The text with every whole-word occurrence of `from` (any case) replaced by `to`. */
function replaceWord(text: string, from: string, to: string): string {
  const find = new RegExp(escape(from), "giu");
  let out = "", last = 0;
  for (let m = find.exec(text); m; m = find.exec(text)) {
    const at = m.index, end = at + m[0].length;
    const after = end < text.length && WORD_CHAR.test(String.fromCodePoint(text.codePointAt(end)!));
    if (wordBefore(text, at) || after) {
      // Looked for again from the next character, as a lookbehind would.
      find.lastIndex = at + (text.codePointAt(at)! > 0xffff ? 2 : 1);
      continue;
    }
    out += text.slice(last, at) + to;
    last = end;
  }
  return out + text.slice(last);
}

/** The numbered sections and references that answer one question. */
export async function retrieve(
  s: Services,
  site: Site,
  asked: string,
  context: RetrievalContext = { questions: [], sources: [] },
): Promise<Retrieved> {
  const earlier = context.questions.slice(-2);
  if (![asked, ...earlier].some((q) => contentTerms(q).length)) {
    return { texts: [], refs: [], matched: false, question: asked };
  }
  const slices = new Slices(SLICE_MS.answering);
  // The site search ranks the pages with its corrections already.
  // One read of the levers: what they hide, and how they expand the question as they expand a
  // search (the owner's synonyms, the names the site's URLs give), so an answer finds what search finds.
  const levers = await s.levers.forQuery(site.id, asked);
  const { expand } = levers;
  const hidden = levers.placement?.hide ?? new Set<string>();
  const candidates = await gather(s, site, asked, earlier, context.sources, slices, {
    expand,
    hidden,
  });
  dropCopies(candidates);
  let question = asked;
  const synonyms = synonymNames(asked, expand);
  const named = [...statedNames(asked, candidates), ...synonyms];
  let round = await roughRound(candidates, question, earlier, slices, named);
  if (round.unheld) {
    // A word no section holds may be a typo: read the question as search corrects it (and
    // score in full only the question as answered).
    question = await corrected(s, site, asked);
    if (question !== asked) round = await roughRound(candidates, question, earlier, slices, named);
  }
  // A name asked about that the site never mentions: the site does not have it.
  if (unknownName(question, round.unheldTerms, candidates[0]?.lang ?? "en")) {
    return { texts: [], refs: [], matched: false, question };
  }
  const scored = await scoreRound(round, slices);
  const best = scored[0];
  if (!best || best.cover < MIN_COVER) return { texts: [], refs: [], matched: false, question };
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
      lang: x.c.lang,
      score: x.score / best.score,
    };
  });
  // The answerer reads the owner's words for the question's as well ("club (membership)").
  const also = [...new Set(synonyms.map(([, other]) => other))];
  if (also.length) question = `${question} (${also.join(", ")})`;
  return { texts, refs, matched: true, question };
}

/**
 * A word written as a name: capitals inside it ("GraphQL", "WebSocket"), in capitals
 * ("LDAP"), or letters joined with digits or by _ . - ("HTTP/3", "frob_limit", "v2"). Such a
 * word names a thing; one the site's pages never hold is a thing the site does not cover,
 * where a plain word it lacks may be said in other words on the page that answers.
 */
const NAME =
  /\p{L}*\p{Ll}\p{Lu}[\p{L}\p{N}]*|\b\p{Lu}{2,}\b|[\p{L}\p{N}]+(?:[_.-][\p{L}\p{N}]+)+|\p{L}+\p{N}+\p{L}*/gu;

/** Whether the question names a thing (NAME) whose every term no candidate section holds. */
function unknownName(question: string, unheld: ReadonlySet<string>, lang: string): boolean {
  if (!unheld.size) return false;
  for (const [name] of question.matchAll(NAME)) {
    const terms = contentTerms(name, lang);
    if (terms.length && terms.every((t) => unheld.has(t))) return true;
  }
  return false;
}

/**
 * A long page is read only so far; a section further on whose heading asks the question
 * (an FAQ's fortieth question) is read from the whole page and added to the candidates.
 */
async function reachFar(s: Services, site: Site, c: Candidate, d: SectionedPage, q: string) {
  if (d.body.length < MAX_TEXT_PER_SOURCE) return; // the whole page was read
  const asked = new Set(contentTerms(q, c.lang));
  const seen = new Set(c.sections.map((x) => x.heading));
  const roots = [...asked].map((t) => t.slice(0, Math.max(2, t.length - 1)));
  const far = (d.sections ?? []).filter((x) => {
    const heading = squash(x.heading);
    if (!heading || seen.has(heading)) return false;
    const low = heading.toLowerCase(); // a cheap test first: most headings name nothing asked
    if (roots.filter((r) => low.includes(r)).length < FAR_NAMED * asked.size) return false;
    // Reading a whole long page is for a question: one a heading asks, or the visitor's own
    // ("How do I write a manager?" is answered under "Writing a manager").
    if (!asksLikeQuestion(heading) && !asksLikeQuestion(q)) return false;
    const named = contentTerms(heading, c.lang).filter((t) => asked.has(t)).length;
    return named >= FAR_NAMED * asked.size;
  });
  if (!far.length || c.ref.type !== "page") return;
  const page = await s.pages.get(site.id, c.ref.url);
  if (!page) return;
  const wanted = new Set(far.map((x) => squash(x.heading)));
  const whole = sectionsOf(`${site.id}\0whole:${c.ref.url}`, { ...page, sections: d.sections });
  c.sections.push(...whole.filter((x) => wanted.has(x.parent ?? x.heading)));
}

/**
 * A question some page has as a heading of its own is answered there: the same question
 * found as a line of another page's text (a table of contents, a cross-reference) is
 * dropped, with whatever follows it there.
 */
function dropCopies(candidates: Candidate[]) {
  if (!candidates.some((c) => c.sections.some((x) => x.parent !== undefined))) return;
  const key = (h: string) => h.toLowerCase();
  const headed = new Set(
    candidates.flatMap((c) => c.sections.filter((x) => x.parent === undefined && x.heading))
      .map((x) => key(x.heading)),
  );
  for (const c of candidates) {
    c.sections = c.sections.filter((x) => x.parent === undefined || !headed.has(key(x.heading)));
  }
}

/**
 * Other names the best pages state for a word or phrase of the question ("Content Delivery
 * Network (CDN)", "also known as"): each pair is [as asked, other name]. Only sections that
 * say such a thing next to a word of the question are read for it.
 */
function statedNames(question: string, candidates: Candidate[]): [string, string][] {
  const asked = ` ${question.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ")} `;
  const has = (p: string) => asked.includes(` ${p.replace(/[^\p{L}\p{N}]+/gu, " ")} `);
  const words = [...new Set(asked.trim().split(" "))].filter((w) => w.length > 1);
  if (!words.length) return [];
  const out = new Map<string, [string, string]>();
  for (const c of candidates.filter((c) => c.rank < STATED_PAGES)) {
    for (const x of c.sections) {
      const text = x.text.slice(0, SECTION_CHARS);
      const also = ALSO.test(text);
      if (!also && !text.includes("(")) continue;
      const low = text.toLowerCase();
      const says = words.some((w) =>
        low.includes(`(${w})`) || low.includes(`${w} (`) || (also && low.includes(w))
      );
      if (!says) continue;
      for (const { words: [a, b] } of mineEquivalences(text)) {
        if (has(a) && !has(b)) out.set(`${a}\u0000${b}`, [a, b]);
        else if (has(b) && !has(a)) out.set(`${b}\u0000${a}`, [b, a]);
      }
    }
  }
  return [...out.values()];
}

/** The owner's synonyms (and the names URLs give) of the question's words, as stated names. */
function synonymNames(question: string, expand: Expand | undefined): [string, string][] {
  if (!expand) return [];
  const words = question.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  // Typos are search's corrections' business here (`corrected`), not the synonyms'.
  return expand(words, () => true).flatMap(({ from, to, phrases }) =>
    phrases.map((p): [string, string] => [words.slice(from, to).join(" "), p.join(" ")])
  );
}

/** Anchors from the page records (`sections`), which the search index does not keep. */
async function addAnchors(s: Services, site: Site, chosen: Scored<Candidate>[]) {
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

/** A page's reference pointing at the section (`#anchor`), when it has one. */
function withAnchor(ref: SourceRef, anchor: string): SourceRef {
  if (ref.type !== "page" || !anchor || ref.url.includes("#")) return ref;
  return { ...ref, url: `${ref.url}#${encodeURIComponent(anchor)}` };
}

/**
 * Per page, the fragments of the sections a curation hides for the question ("/api#limits"):
 * an answer never reads them, as a result never links them.
 */
function fragmentsOf(hidden: ReadonlySet<string>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const url of hidden) {
    const at = url.indexOf("#");
    if (at <= 0) continue;
    const page = url.slice(0, at);
    out.set(page, [...out.get(page) ?? [], url.slice(at + 1)]);
  }
  return out;
}

/** Candidate pages and documents, with their sections. */
async function gather(
  s: Services,
  site: Site,
  question: string,
  earlier: string[],
  used: string[],
  slices: Slices,
  { expand, hidden }: { expand?: Expand; hidden: ReadonlySet<string> },
): Promise<Candidate[]> {
  const own = searchWords(question);
  const withContext = earlier.length ? searchWords([question, ...earlier].join(" ")) : "";
  const docsToo = PLANS[site.plan].documents;
  // Pages an owner's curation hides for this question are never a source (lib/levers).
  const lists = await Promise.all([
    own
      ? s.indexes.top(site.id, { query: own, limit: PAGES, maxChars: MAX_TEXT_PER_SOURCE, expand })
      : [],
    withContext
      ? s.indexes.top(site.id, {
        query: withContext,
        limit: PAGES,
        maxChars: MAX_TEXT_PER_SOURCE,
        expand,
      })
      : [],
    docsToo && own
      ? s.documentIndexes.top(site.id, {
        query: own,
        limit: DOCUMENTS,
        maxChars: MAX_TEXT_PER_SOURCE,
        expand,
      })
      : [],
    docsToo && withContext
      ? s.documentIndexes.top(site.id, {
        query: withContext,
        limit: DOCUMENTS,
        maxChars: MAX_TEXT_PER_SOURCE,
        expand,
      })
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
        lang: languageOf(d.lang),
        rank,
        prior: priorOf({
          codeShare: d.codeShare,
          title: d.title,
          headings: d.sections?.map((x) => x.heading),
        }),
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
  const hiddenSections = fragmentsOf(hidden);
  for (const [c, d] of texts) {
    await slices.pause();
    c.sections = sectionsOf(`${site.id}\0${c.key}`, d);
    if (c.ref.type === "page" && c.rank < FAR_PAGES) await reachFar(s, site, c, d, question);
    const unlinked = c.ref.type === "page" ? hiddenSections.get(c.ref.url) : undefined;
    if (unlinked) {
      c.sections = c.sections.filter((x) => !unlinked.some((f) => namesAnchor(x.anchor, f)));
    }
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
      lang: languageOf(p.lang),
      rank: PAGES,
      usedBefore: true,
      sections: sectionsOf(`${site.id}\0page:${p.url}`, {
        ...p,
        body: p.body.slice(0, MAX_TEXT_PER_SOURCE),
      }),
    });
  });
  return [...out.values()];
}
