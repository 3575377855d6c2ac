import assert from "node:assert/strict";
import { firstWord, term, wordList, words } from "../../lib/search/engine/analysis/tokens.ts";

Deno.test("tokens - a text's words come in reading order: dotted names, apostrophes and joined words whole, unspaced scripts split", () => {
  const cases: [string, string, string[]][] = [
    ["Set up the cache, then run it.", "en", ["Set", "up", "the", "cache", "then", "run", "it"]],
    ["acme.core.store: don't re-run x_y -z- a..b", "en", [
      "acme.core.store",
      "don't",
      "re-run",
      "x_y",
      "z",
      "a",
      "b",
    ]],
    ["l’été à Paris — Ελληνικά, ΟΔΟΣ", "fr", ["l’été", "à", "Paris", "Ελληνικά", "ΟΔΟΣ"]],
    ["𝐀𝐁 x 𠀀 y", "en", ["𝐀𝐁", "x", "𠀀", "y"]],
    ["«— …", "en", []],
    ["", "en", []],
  ];
  for (const [text, lang, expected] of cases) {
    assert.deepEqual(wordList(text, lang), expected, text);
    // The iterator gives the same words, and the first word is the first of them.
    assert.deepEqual([...words(text, lang)], expected, text);
    assert.equal(firstWord(text, lang), expected[0], text);
  }
  // Runs of Chinese or Japanese are cut into words as Intl.Segmenter cuts them, spaced words kept.
  for (
    const [text, lang, run] of [["缓存设置 and more", "zh", "缓存设置"], [
      "キャッシュの設定を変更",
      "ja",
      "キャッシュの設定を変更",
    ]]
  ) {
    const list = wordList(text, lang), segmented = list.filter((w) => !/^[a-z]+$/.test(w));
    assert.ok(segmented.length >= 2, JSON.stringify(list));
    assert.equal(segmented.join(""), run);
    assert.deepEqual(
      list.slice(segmented.length),
      text.slice(run.length).split(" ").filter(Boolean),
    );
    assert.deepEqual([...words(text, lang)], list);
    assert.equal(firstWord(text, lang), list[0]);
  }
});

Deno.test("tokens - a word's indexed form is the same when its cache has turned over many times", () => {
  // A long word cut from a long text, as pages give them.
  const text = `${"filler ".repeat(10_000)} internationalization configurations`;
  const [long] = wordList(text, "en").slice(-2);
  const first = term(long, "en");
  assert.equal(first, term("internationalization", "en"));
  // More distinct words than both generations of the cache hold.
  for (let i = 0; i < 80_000; i++) term(`w${i}x`, "en");
  assert.equal(term(long, "en"), first);
  assert.equal(term("configurations", "en"), term("configuration", "en"));
  assert.equal(term("the", "en"), "");
});
