/**
 * schema.org FAQPage in a page's JSON-LD: its questions and accepted answers. A site may
 * state its FAQ there only (the visible answers drawn by a script), so the questions the
 * page text lacks are added to it, each as a heading line followed by its answer.
 */
import { squash } from "../search/engine/mod.ts";

export interface FaqEntry {
  question: string;
  answer: string;
}

/** At most this many questions per page, and characters per answer. */
const MAX_ENTRIES = 200;
const MAX_ANSWER_CHARS = 4_000;
const MAX_QUESTION_CHARS = 200;
/** JSON-LD blocks longer than this are not parsed (nobody writes an FAQ that long). */
const MAX_JSON_CHARS = 1_000_000;

const asText = (v: unknown) =>
  typeof v === "string"
    ? squash(
      v.replace(/<[^>]*>/g, " ").replace(/&nbsp;/g, " ").replace(/&quot;/g, '"')
        .replace(/&#39;|&apos;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
        .replace(/&amp;/g, "&"),
    )
    : "";

const isType = (node: Record<string, unknown>, type: string) =>
  [node["@type"]].flat().some((t) => typeof t === "string" && t.toLowerCase() === type);

/** The questions and answers of every FAQPage in the given JSON-LD blocks. */
export function faqEntries(blocks: string[]): FaqEntry[] {
  const out: FaqEntry[] = [];
  const visit = (node: unknown, depth: number) => {
    if (out.length >= MAX_ENTRIES || depth > 8 || !node || typeof node !== "object") return;
    if (Array.isArray(node)) return node.forEach((n) => visit(n, depth + 1));
    const o = node as Record<string, unknown>;
    if (isType(o, "question")) {
      const accepted = [o.acceptedAnswer].flat()[0] as Record<string, unknown> | undefined;
      const question = asText(o.name);
      const answer = asText(accepted?.text).slice(0, MAX_ANSWER_CHARS);
      // A question longer than a heading may be is no heading (page.ts keeps 200 characters).
      if (question && answer && question.length <= MAX_QUESTION_CHARS) {
        out.push({ question, answer });
      }
      return;
    }
    for (const key of ["@graph", "mainEntity", "hasPart"]) visit(o[key], depth + 1);
  };
  for (const block of blocks) {
    if (block.length > MAX_JSON_CHARS) continue;
    try {
      const data = JSON.parse(block);
      for (const n of [data].flat()) {
        if (n && typeof n === "object" && (isType(n, "faqpage") || "@graph" in n)) visit(n, 0);
      }
    } catch {
      // Broken JSON-LD is common: the page's text still stands.
    }
  }
  return out;
}

/** The page's text and sections with the FAQ questions the text does not already hold. */
export function withFaq<S extends { heading: string; anchor: string; text: string }>(
  page: { text: string; sections: S[] },
  entries: FaqEntry[],
): { text: string; sections: (S | { heading: string; anchor: string; text: string })[] } {
  const missing = entries.filter((e) => !page.text.includes(e.question));
  if (!missing.length) return page;
  const lines = missing.flatMap((e) => [e.question, e.answer]);
  return {
    text: [page.text, ...lines].filter(Boolean).join("\n"),
    sections: [
      ...page.sections,
      ...missing.map((e) => ({ heading: e.question, anchor: "", text: e.answer })),
    ],
  };
}
