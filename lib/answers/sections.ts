/**
 * A page cut into its sections: a heading, the text under it, and its anchor. The
 * crawler writes one block per line and each heading as a line of its own where its
 * section starts; `headings` says which lines those are, and `sections` (when the page
 * record has them) gives their anchors in reading order.
 */
import { squash } from "../search/engine/mod.ts";
import { questionShaped, questionText } from "./analysis.ts";

/** A page as retrieval reads it; `sections` is optional until every record carries it. */
export interface SectionedPage {
  title: string;
  body: string;
  /** Section headings (an array, or one a line as the search index keeps them). */
  headings?: string[] | string;
  sections?: { heading: string; anchor: string }[];
}

export interface TextSection {
  /** "" for the text before the first heading. */
  heading: string;
  anchor: string;
  text: string;
  /** 0 for the first section of the page. */
  index: number;
  /** For one question of an FAQ section, that section's heading. */
  parent?: string;
}

const MARKDOWN_HEADING = /^#{1,6}\s+(\S.*)$/;
const SENTENCE_END = /[.!?:;,…"”)\]]$/u;

/**
 * For a page whose record names no headings: a Markdown heading, or a short line that
 * starts like a title, ends like no sentence and comes before a longer paragraph.
 */
function looksLikeHeading(lines: string[], i: number): string | null {
  const line = lines[i];
  const md = MARKDOWN_HEADING.exec(line);
  if (md) return md[1];
  const words = line.split(" ").length;
  const next = lines.slice(i + 1, i + 3).find((l) => l) ?? ""; // past one blank line
  if (words > 12 || SENTENCE_END.test(line) || !/^[\p{Lu}\p{N}]/u.test(line)) return null;
  return next.split(" ").length > Math.max(12, 2 * words) ? line : null;
}

/** The page's sections in reading order; a page without headings is one section. */
export function splitSections(page: SectionedPage): TextSection[] {
  // Sections name their headings exactly; the index's headings field may carry more (anchors).
  const list = page.sections?.length
    ? page.sections.map((s) => s.heading)
    : typeof page.headings === "string"
    ? page.headings.split("\n")
    : page.headings ?? [];
  const squashed = list.map((h) => squash(h));
  const known = new Set(squashed.filter(Boolean));
  // Anchors by heading, in the order each heading text occurs (`list` is the sections' headings).
  const anchors = new Map<string, string[]>();
  if (page.sections?.length) {
    page.sections.forEach((s, i) => {
      const h = squashed[i];
      if (!h) return;
      const had = anchors.get(h);
      if (had) had.push(s.anchor);
      else anchors.set(h, [s.anchor]);
    });
  }
  // The crawler writes lines already squashed: then a section's text is a stretch of the body,
  // and only a line as short as some heading can be one.
  const cut = known.size ? cutAtHeadings(page.body, known, anchors) : null;
  if (cut) return cut;
  const out: TextSection[] = [];
  let current: { heading: string; anchor: string; lines: string[] } = {
    heading: "",
    anchor: "",
    lines: [],
  };
  const flush = () => {
    const text = current.lines.join("\n").trim();
    if (text || current.heading) out.push({ ...current, text, index: out.length });
  };
  const lines = page.body.split(/\r\n?|\n/).map((l) => l.trim());
  lines.forEach((line, i) => {
    if (!line) return void current.lines.push("");
    const heading = known.size ? (known.has(line) ? line : null) : looksLikeHeading(lines, i);
    if (heading === null) return void current.lines.push(line);
    flush();
    current = { heading, anchor: anchors.get(heading)?.shift() ?? "", lines: [] };
  });
  flush();
  return out;
}

/** Whether a character is blank space that `trim` takes off (control characters count too). */
const blank = (c: number) => c <= 32 || (c >= 127 && /\s/.test(String.fromCharCode(c)));

/**
 * `splitSections` of a body whose lines are all trimmed and end in "\n" alone, cut at the
 * lines that are known headings; null for any other body.
 */
function cutAtHeadings(
  body: string,
  known: Set<string>,
  anchors: Map<string, string[]>,
): TextSection[] | null {
  if (body.includes("\r")) return null;
  let shortest = Infinity, longest = 0;
  for (const h of known) {
    shortest = Math.min(shortest, h.length);
    longest = Math.max(longest, h.length);
  }
  const out: TextSection[] = [];
  // Anchors taken by count, not shifted off: a body found untrimmed halfway is cut again.
  const taken = new Map<string, number>();
  let heading = "", anchor = "", from = 0;
  const flush = (to: number) => {
    const text = from < to ? body.slice(from, to).trim() : "";
    if (text || heading) out.push({ heading, anchor, text, index: out.length });
  };
  for (let at = 0; at <= body.length;) {
    let end = body.indexOf("\n", at);
    if (end < 0) end = body.length;
    const n = end - at;
    if (n && (blank(body.charCodeAt(at)) || blank(body.charCodeAt(end - 1)))) return null;
    if (n >= shortest && n <= longest) {
      const line = body.slice(at, end);
      if (known.has(line)) {
        flush(at);
        heading = line;
        const k = taken.get(line) ?? 0;
        taken.set(line, k + 1);
        anchor = anchors.get(line)?.[k] ?? "";
        from = end + 1;
      }
    }
    at = end + 1;
  }
  flush(body.length);
  return out;
}

const Q_LINE = /(?:^|\n)q(?:uestion)?\s*[:.]/i;

/** A line that opens with a question ("Do you ship to Canada? No. …"): the question, the rest. */
const LEADING_QUESTION = /^(\p{Lu}[^?.!\n]{3,200}\?)["”’)]?\s+(\S.*)$/u;

/**
 * A section cut at the questions it asks and answers (an FAQ's `<dt>`, `<summary>`, "Q:"
 * lines, or paragraphs opening with their question): each question becomes the heading of
 * the text up to the next one, so an answer reads the one question asked, not its
 * neighbours; the section's own heading stays as each one's `parent`. A section asking
 * fewer than two questions comes back whole: one question in prose is rhetorical.
 */
export function splitQuestions(section: TextSection): TextSection[] {
  // Fewer than two "?" and no "Q:" line: nothing to cut, and most sections are so.
  const t = section.text, first = t.indexOf("?");
  if ((first < 0 || first === t.lastIndexOf("?")) && !Q_LINE.test(t)) return [section];
  const lines = t.split("\n");
  const out: TextSection[] = [];
  let heading = section.heading, body: string[] = [];
  const flush = () => {
    const text = body.join("\n").trim();
    if (text) out.push({ ...section, heading, text, parent: section.heading });
    body = [];
  };
  let asked = 0;
  lines.forEach((line, i) => {
    // Most lines ask nothing: the "?" test spares them the patterns.
    if (!line.includes("?") && !/^q/i.test(line)) return void body.push(line);
    const lead = LEADING_QUESTION.exec(line);
    const next = lines.slice(i + 1).find((l) => l.trim());
    const whole = !lead && questionShaped(line) && next !== undefined && !questionShaped(next);
    if (!lead && !whole) return void body.push(line);
    flush();
    asked++;
    heading = questionText(lead ? lead[1] : line);
    if (lead) body.push(lead[2]);
  });
  flush();
  return asked >= 2 ? out : [section];
}
