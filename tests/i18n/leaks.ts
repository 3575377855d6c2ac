/**
 * For tests that draw the widget or the results page in a language: which English messages
 * (or the parts of them between placeholders) show up in what a visitor reads. Give it the
 * text, aria-labels, placeholders and titles of the drawn UI, without the site's own content.
 */
import { en, type Lang, LANGS } from "../../widget/i18n/index.ts";

/** Messages spelled as in English on purpose: the language writes the word the same way. */
export const SAME_AS_ENGLISH: Partial<Record<Lang, (keyof typeof en)[]>> = {
  fr: ["page", "source", "sourceDocument", "sourcePage", "sources", "suggestions"],
  de: ["navDashboard"],
  es: ["no"],
  it: ["navDashboard", "no"],
  nl: ["filters", "navDashboard", "sourceDocument"],
};

/** The English pieces a page in `lang` must not show, longest first (so a phrase beats a word). */
function pieces(lang: Lang): string[] {
  const allowed = new Set<string>(SAME_AS_ENGLISH[lang] ?? []);
  const banned = new Set<string>(), spared = new Set<string>();
  for (const [key, value] of Object.entries(en)) {
    for (const text of typeof value === "string" ? [value] : Object.values(value)) {
      const parts = text.split(/\{\w+\}/);
      for (const raw of parts) {
        const piece = raw.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, "");
        const letters = piece.replace(/[^\p{L}]/gu, "").length;
        if (!letters || (parts.length > 1 && letters < 3)) continue;
        (allowed.has(key) ? spared : banned).add(piece);
      }
    }
  }
  // "Page" is French as a message of its own, so not a leak inside "Page 2 of 3" either.
  return [...banned].filter((p) => !spared.has(p)).sort((a, b) => b.length - a.length);
}

const cache = new Map<Lang, RegExp>();

/** The English pieces found in `text` drawn for `lang` (none is expected, nor checked, for en). */
export function englishLeaks(text: string, lang: Lang): string[] {
  if (lang === "en" || !LANGS.includes(lang)) return [];
  let re = cache.get(lang);
  if (!re) {
    const alternatives = pieces(lang).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    re = new RegExp(`(?<![\\p{L}])(?:${alternatives.join("|")})(?![\\p{L}])`, "gu");
    cache.set(lang, re);
  }
  return [...new Set([...text.matchAll(re)].map((m) => m[0]))];
}
