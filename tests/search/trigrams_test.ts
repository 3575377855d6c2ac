/**
 * The typo filter's three-letter sequences: a sequence of a word noted is found, and no
 * other sequence is (each has a bit of its own), over every sequence its alphabet can make.
 */
import assert from "node:assert/strict";
import { END, START, TRIGRAM_BYTES, Trigrams } from "../../lib/search/engine/analysis/trigrams.ts";

const LETTERS = "abcdefghijklmnopqrstuvwxyz0123456789_.-'";

Deno.test("trigrams - exactly the sequences of the words noted, marks included, each its own bit", () => {
  const words = ["middleware", "qs", "x", "o'neil", "a.b-c_9", "zz"];
  const t = new Trigrams();
  assert.equal(t.bits.length, TRIGRAM_BYTES);
  const present = new Set<string>();
  for (const w of words) {
    t.add(w);
    const s = String.fromCharCode(START) + w + String.fromCharCode(END);
    for (let i = 0; i + 3 <= s.length; i++) present.add(s.slice(i, i + 3));
  }
  const chars = [START, END, ...[...LETTERS].map((c) => c.charCodeAt(0))];
  let found = 0;
  for (const a of chars) {
    for (const b of chars) {
      for (const c of chars) {
        const key = String.fromCharCode(a, b, c);
        assert.equal(t.has(a, b, c), present.has(key), JSON.stringify(key));
        if (present.has(key)) found++;
      }
    }
  }
  assert.equal(found, present.size);
});

Deno.test("trigrams - a character outside the alphabet counts as possible", () => {
  const t = new Trigrams();
  t.add("café");
  assert.ok(t.has("é".charCodeAt(0), "a".charCodeAt(0), "b".charCodeAt(0)));
  assert.ok(t.has("a".charCodeAt(0), "f".charCodeAt(0), "é".charCodeAt(0)));
  assert.equal(t.has(START, "b".charCodeAt(0), "a".charCodeAt(0)), false);
});
