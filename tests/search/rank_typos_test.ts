/**
 * Typo correction as a visitor expects it (the most used word one edit away: a letter deleted,
 * swapped with the next, replaced or inserted), checked against every edit spelled out, and
 * the vocabulary's lookup by units that it reads candidates through.
 */
import assert from "node:assert/strict";
import { Vocab } from "../../lib/search/engine/store/vocab.ts";
import { Trigrams } from "../../lib/search/engine/analysis/trigrams.ts";
import { correct, type Lexicon } from "../../lib/search/engine/analysis/typos.ts";
import { isCommonWord } from "../../lib/search/engine/analysis/tokens.ts";
import { seeded } from "../fixtures/seeded.ts";

const units = (word: string) =>
  Uint16Array.from({ length: word.length }, (_, i) => word.charCodeAt(i));
/** A word's units at the start of a larger buffer, as a caller reusing one passes them. */
const inBuffer = (word: string) => {
  const buf = new Uint16Array(word.length + 7).fill(0x61);
  buf.set(units(word));
  return buf;
};

/** A lexicon of `words`, each used as often as given. */
function lexicon(words: Map<string, number>): Lexicon {
  const vocab = new Vocab(8), trigrams = new Trigrams(), alphabet = new Set<string>();
  for (const [w, n] of words) {
    vocab.set(w, n);
    trigrams.add(w);
    for (const c of w) if (c.charCodeAt(0) > 0x7f) alphabet.add(c);
  }
  return { vocab, trigrams, alphabet };
}

/** Every word one edit from `word` over `letters`, spelled out with strings. */
function edits(word: string, letters: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i <= word.length; i++) {
    const head = word.slice(0, i), tail = word.slice(i);
    if (tail) out.push(head + tail.slice(1));
    if (tail.length > 1) out.push(head + tail[1] + tail[0] + tail.slice(2));
    for (const c of letters) {
      if (tail && c !== tail[0]) out.push(head + c + tail.slice(1));
      out.push(head + c + tail);
    }
  }
  return out;
}

Deno.test("vocab - a word's uses read from its units are those get reads, for any word, held or not, as words come and go", () => {
  const rand = seeded(3);
  const chars = ["a", "b", "c", "é", "ж", "\u{1D518}"];
  const word = () =>
    Array.from({ length: 1 + Math.floor(rand() * 7) }, () => chars[Math.floor(rand() * 6)])
      .join("");
  const vocab = new Vocab(8);
  const check = (v: Vocab) => {
    for (let k = 0; k < 300; k++) {
      const w = word();
      assert.equal(v.countOf(inBuffer(w), w.length), v.get(w) ?? 0, w);
    }
  };
  for (let step = 0; step < 4000; step++) {
    const w = word();
    if (rand() < 0.7) vocab.set(w, 1 + Math.floor(rand() * 50));
    else vocab.delete(w);
    // Looked up while it grows: what it keeps for lookups follows the words.
    if (step % 500 === 0) check(vocab);
  }
  check(vocab);
  check(vocab.packed());
  const long = "x".repeat(300);
  vocab.set(long, 7);
  assert.equal(vocab.countOf(units(long), long.length), 7, "a word too long for a byte");
  for (const [w, n] of vocab.entries()) assert.equal(vocab.countOf(units(w), w.length), n, w);
});

Deno.test("typos - a word no page uses is read as the most used word one edit away, whatever the edit", () => {
  const rand = seeded(11);
  const letters = [..."abcdefghijklmnopqrst"];
  const pick = () =>
    Array.from({ length: 4 + Math.floor(rand() * 4) }, () => letters[Math.floor(rand() * 20)])
      .join("");
  const words = new Map<string, number>();
  // Distinct uses: the most used neighbour is one word. Few words: most letter sequences are
  // in none, so candidates are left out for them.
  for (let n = 1; words.size < 400; n++) words.set(pick(), n);
  const db = lexicon(words);
  const alphabet = [..."abcdefghijklmnopqrstuvwxyz0123456789_"];
  const known = [...words.keys()];
  let corrected = 0;
  for (let k = 0; k < 600; k++) {
    // A word pages use, mistyped; or letters at random.
    const near = edits(known[Math.floor(rand() * known.length)], letters);
    const typed = k % 4 ? near[Math.floor(rand() * near.length)] : pick();
    if (typed.length < 4 || words.has(typed)) continue; // too short to correct, or no typo
    let best: string | null = null;
    for (const e of edits(typed, alphabet)) {
      if ((words.get(e) ?? 0) > (best === null ? 0 : words.get(best)!) && !isCommonWord(e, "en")) {
        best = e;
      }
    }
    assert.equal(correct(db, typed, ["en"], { min: 4, max: 40 }), best, typed);
    if (best) corrected++;
  }
  assert.ok(corrected > 300, `${corrected} corrected`);
});

Deno.test("typos - each kind of edit is undone, in and beyond ASCII, and an identifier's one unknown part is corrected in place", () => {
  const db = lexicon(
    new Map([
      ["espresso", 40],
      ["cappuccino", 30],
      ["привет", 12],
      ["банк", 9],
      ["get_object_or_404", 5],
      ["object", 3],
      ["get", 3],
      ["or", 3],
      ["404", 3],
      ["would", 100],
    ]),
  );
  const fix = (w: string) => correct(db, w, ["en"], { min: 4, max: 40 });
  assert.equal(fix("expresso"), "espresso", "replaced");
  assert.equal(fix("esspresso"), "espresso", "inserted");
  assert.equal(fix("espreso"), "espresso", "deleted");
  assert.equal(fix("cappucicno"), "cappuccino", "swapped");
  assert.equal(fix("прибет"), "привет", "a letter beyond ASCII replaced");
  assert.equal(fix("пивет"), "привет", "a letter beyond ASCII put back");
  assert.equal(fix("get_objcet_or_404"), "get_object_or_404", "an identifier's part");
  assert.equal(fix("zzzzzz"), null, "nothing near");
  assert.equal(fix("wuold"), null, "never a word too common to mean anything");
});
