/**
 * One definition of a word (lib/search/engine/analysis/word_chars.ts): the parts the index
 * makes of a word as written are the words the highlighter and the browser scripts mark.
 */
import assert from "node:assert/strict";
import {
  MATCHED_WORD,
  UNSPACED,
  WORD_CHAR,
  WORD_RUN,
} from "../../lib/search/engine/analysis/word_chars.ts";
import { wordList } from "../../lib/search/engine/analysis/tokens.ts";

const TEXTS = [
  "Call get_object_or_404() before shop.orders.refunds; don't re-run it.",
  "Crème brûlée, naïve café — Müller's x-ray № 42",
  "हिन्दी भाषा में खोज, ελληνικά κείμενα, русский текст",
  "v2.3.1-beta_rc and C++ / C# or Node.js",
];

Deno.test("word chars - the index's parts of each word are the words highlights and scripts mark", () => {
  for (const text of TEXTS) {
    const parts = (text.match(WORD_RUN) ?? []).flatMap((run) => run.split(/[.'’-]/));
    assert.deepEqual(text.match(MATCHED_WORD) ?? [], parts.filter(Boolean), text);
    // The index reads spaced scripts as the runs themselves.
    assert.deepEqual(wordList(text, "en"), text.match(WORD_RUN) ?? [], text);
  }
});

Deno.test("word chars - marks and digits are word characters; punctuation and spaces are not", () => {
  for (const c of ["a", "é", "\u0947", "7", "_", "ж", "東"]) assert.ok(WORD_CHAR.test(c), c);
  for (const c of [" ", ".", "-", "'", "/", "(", "—"]) assert.ok(!WORD_CHAR.test(c), c);
  for (const t of ["東京", "ひらがな", "ภาษาไทย", "\u{20000}"]) assert.ok(UNSPACED.test(t), t);
  for (const t of ["tokyo", "हिन्दी", "русский"]) assert.ok(!UNSPACED.test(t), t);
});
