/**
 * The sealed terms' table (UTF-8 bytes and starts) against a sorted array of strings:
 * the same order as JS `<` (UTF-16 units, astral characters and all), the same exact and
 * prefix answers, and validation that refuses what is out of order or not whole UTF-8.
 */
import assert from "node:assert/strict";
import { TermTable, TermTableBuilder } from "../../lib/search/engine/store/term_table.ts";

const utf8 = (s: string) => new TextEncoder().encode(s);

/** Terms in and beyond Latin-1, on both sides of the surrogates, and prefixes of each other. */
const TERMS = [
  "a",
  "ab",
  "abc",
  "abd",
  "b",
  "café",
  "cafés",
  "cafe\u0301",
  "zz",
  "ÿ",
  "Ā",
  "чай",
  "чайник",
  "한글",
  "\u{1D518}nicode", // astral: a surrogate pair, below U+E000 in UTF-16 order
  "\u{1D518}ni",
  "\u{1F375}",
  "\uFF46\uFF55\uFF4C\uFF4C", // fullwidth: above the surrogates, below astral in code point order
  "\uFF46\uFF55",
];

/** The index of the first term not below `t` in a sorted array. */
const lowerBound = (sorted: string[], t: string) => {
  const i = sorted.findIndex((s) => !(s < t));
  return i < 0 ? sorted.length : i;
};

Deno.test("term table - terms keep the default sort's order (UTF-16 units), astral and fullwidth alike", () => {
  const sorted = [...TERMS].sort();
  const table = TermTable.from(sorted);
  assert.equal(table.length, sorted.length);
  assert.deepEqual(Array.from({ length: table.length }, (_, i) => table.at(i)), sorted);
  assert.ok(table.valid());
  // UTF-16 order puts the astral terms (surrogates, D8xx) before the fullwidth ones (FFxx).
  assert.ok(lowerBound(sorted, "\u{1D518}") < lowerBound(sorted, "\uFF46"));
  for (let i = 0; i < sorted.length; i++) {
    for (const t of TERMS) {
      assert.equal(Math.sign(table.compare(i, t)), sorted[i] < t ? -1 : sorted[i] === t ? 0 : 1);
    }
  }
});

Deno.test("term table - exact and prefix lookups find what a sorted array finds", () => {
  const sorted = [...TERMS].sort();
  const table = TermTable.from(sorted);
  const probes = new Set<string>(["", "abcd", "c", "zzz", "\u{1F376}", "\uD835", "\uFFFF"]);
  for (const t of TERMS) for (let n = 0; n <= t.length; n++) probes.add(t.slice(0, n));
  for (const p of probes) {
    assert.equal(table.lowerBound(p), lowerBound(sorted, p), `lower bound of ${p}`);
    assert.equal(table.indexOf(p), sorted.indexOf(p), `index of ${p}`);
    const byPrefix: string[] = [];
    for (let i = table.lowerBound(p); i < table.length && table.startsWith(i, p); i++) {
      byPrefix.push(table.at(i));
    }
    assert.deepEqual(byPrefix, sorted.filter((s) => s.startsWith(p)), `prefix ${p}`);
  }
});

Deno.test("term table - an empty table finds nothing and is valid", () => {
  const empty = new TermTable();
  assert.equal(empty.length, 0);
  assert.equal(empty.lowerBound("a"), 0);
  assert.equal(empty.indexOf("a"), -1);
  assert.equal(empty.indexOf(""), -1);
  assert.ok(empty.valid());
  assert.ok(TermTable.from([]).valid());
  assert.equal(TermTable.from([]).bytes.length, 0);
});

Deno.test("term table - terms copied from another table read as the strings added", () => {
  const sorted = [...TERMS].sort();
  const first = TermTable.from(sorted);
  const build = new TermTableBuilder();
  // Every other term copied as held, the rest added as strings: one table, the same terms.
  sorted.forEach((t, i) => i % 2 ? build.copy(first, i) : build.add(t));
  const table = build.finish();
  assert.deepEqual(table.bytes, first.bytes);
  assert.deepEqual(table.starts, first.starts);
  assert.ok(table.valid());
  assert.equal(table.indexOf("\u{1D518}ni"), sorted.indexOf("\u{1D518}ni"));
});

Deno.test("term table - validation refuses terms out of order, repeated, or starts that do not fit", () => {
  assert.equal(TermTable.from(["b", "a"]).valid(), false);
  assert.equal(TermTable.from(["ab", "ab"]).valid(), false);
  assert.equal(TermTable.from(["abc", "ab"]).valid(), false, "a prefix sorts first");
  assert.equal(
    TermTable.from(["\uFF46", "\u{1D518}"]).valid(),
    false,
    "UTF-16 order, not code points",
  );
  assert.ok(TermTable.from(["ab", "abc", "b"]).valid());
  const abc = utf8("abc");
  assert.equal(new TermTable(abc, Uint32Array.of(0, 2, 1, 3)).valid(), false, "starts go back");
  assert.equal(new TermTable(abc, Uint32Array.of(0, 1, 4)).valid(), false, "past the end");
  assert.equal(new TermTable(abc, Uint32Array.of(1, 3)).valid(), false, "not from 0");
  assert.equal(new TermTable(abc, new Uint32Array(0)).valid(), false, "no starts");
  const cafe = utf8("acafé"); // "é" is two bytes: a start between them cuts it
  assert.ok(new TermTable(cafe, Uint32Array.of(0, 1, 6)).valid());
  assert.equal(new TermTable(cafe, Uint32Array.of(0, 5, 6)).valid(), false, "a character cut");
  assert.equal(
    new TermTable(Uint8Array.of(0x61, 0xff), Uint32Array.of(0, 2)).valid(),
    false,
    "not UTF-8",
  );
});

Deno.test("term table - random terms over many scripts: order, lookups and validation as a sorted array's", () => {
  // Characters from ASCII, Latin-1, Cyrillic, Han, fullwidth and beyond the BMP.
  const pool = [
    "a",
    "b",
    "z",
    "0",
    "é",
    "ÿ",
    "ж",
    "я",
    "中",
    "\uFF46",
    "\uFFE0",
    "\u{1D518}",
    "\u{1F375}",
  ];
  let seed = 11;
  const next = (n: number) => (seed = (seed * 48271) % 2147483647) % n;
  const word = () => Array.from({ length: 1 + next(4) }, () => pool[next(pool.length)]).join("");
  const sorted = [...new Set(Array.from({ length: 400 }, word))].sort();
  const table = TermTable.from(sorted);
  assert.ok(table.valid());
  for (let k = 0; k < 300; k++) {
    const p = word();
    assert.equal(table.lowerBound(p), lowerBound(sorted, p), `lower bound of ${p}`);
    assert.equal(table.indexOf(p), sorted.indexOf(p), `index of ${p}`);
    const i = next(sorted.length);
    assert.equal(Math.sign(table.compare(i, p)), sorted[i] < p ? -1 : sorted[i] === p ? 0 : 1);
    assert.equal(table.startsWith(i, p), sorted[i].startsWith(p));
  }
  // Any two neighbours swapped is out of order.
  const swapped = [...sorted];
  [swapped[5], swapped[6]] = [swapped[6], swapped[5]];
  assert.equal(TermTable.from(swapped).valid(), false);
});
