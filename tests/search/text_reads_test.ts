/**
 * Page text read for results a step at a time (a description, then a snippet's chunks, then
 * sections further on), kept between results: every read is the page's own text as `slice`
 * gives it, whatever was read before, of this page or of others, and however little is kept.
 */
import assert from "node:assert/strict";
import { keptPrefix, packText, textAround } from "../../lib/search/store/packed_text.ts";
import { KEPT_BYTES, keptNow } from "../../lib/search/store/kept_bytes.ts";

/** Deterministic pseudo-random numbers. */
function rng(seed: number) {
  let x = seed;
  return () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/** ASCII, Latin-1, Cyrillic, CJK and an astral pair: one to four bytes a character. */
const CHARS = ["a", "b", " ", "\n", "é", "ж", "茶", "\u{1D518}"];

function randomText(rand: () => number, length: number): string {
  let s = "";
  while (s.length < length) s += CHARS[Math.floor(rand() * CHARS.length)];
  return s;
}

/** Checks a read of at least `n` characters: the text's start, as long as asked or the text. */
function checkRead(got: string, text: string, n: number, max: number, what: string) {
  const length = Math.min(max, text.length);
  assert.ok(got.length >= Math.min(n, length), `${what}: ${got.length} < ${n}`);
  assert.ok(got.length <= length, `${what}: past ${length}`);
  assert.equal(got, text.slice(0, got.length), what);
}

Deno.test("text reads - a page read on a step at a time is its text, across block edges and characters of several bytes", () => {
  const rand = rng(21);
  for (const length of [600, 2_500, 8_191, 8_192, 9_000, 20_000]) {
    const text = randomText(rand, length), packed = packText(text);
    // As a result reads it: its description, snippet chunks, sections up to the first 8,000.
    const steps = [600, 2_112, 4_160, 6_208, 7_999, 8_000, 8_000];
    const page = keptPrefix(packed, 8_000);
    for (const n of steps) checkRead(page.upTo(n), text, n, 8_000, `${length}: up to ${n}`);
    // Shown again by another result, and read further than before.
    const again = keptPrefix(packed, 20_000);
    for (const n of [100, 8_000, 8_193, 16_000, 20_000]) {
      checkRead(again.upTo(n), text, n, 20_000, `${length} again: up to ${n}`);
    }
  }
});

Deno.test("text reads - pages read on in turns each read as themselves", () => {
  const rand = rng(22);
  const texts = Array.from({ length: 5 }, (_, i) => randomText(rand, 9_000 + i * 3_000));
  const pages = texts.map((t) => keptPrefix(packText(t), 8_000));
  // One step of each page in turn: every read carries on where another page's read was.
  for (const n of [600, 1_000, 2_500, 3_000, 5_000, 7_000, 8_000]) {
    pages.forEach((p, i) => checkRead(p.upTo(n), texts[i], n, 8_000, `page ${i} up to ${n}`));
  }
  // A stretch further on between the steps of another page's read.
  const long = texts[4], packed = packText(long), page = keptPrefix(packed, 8_000);
  checkRead(page.upTo(700), long, 700, 8_000, "before the stretch");
  const { text: stretch, at } = textAround(packed, 16_000, 17_000, true);
  assert.equal(stretch, long.slice(at, at + stretch.length));
  checkRead(page.upTo(8_000), long, 8_000, 8_000, "after the stretch");
});

Deno.test("text reads - more text read than is kept: what is kept stays within its bytes, and pages read again read right", () => {
  const rand = rng(23);
  // About 12 MB of UTF-8 read for results a round: more than is kept.
  const texts = Array.from({ length: 160 }, () => randomText(rand, 9_000));
  const packed = texts.map(packText);
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < packed.length; i++) {
      for (let k = 0; k < 5; k++) {
        // Each page read from a copy of its bytes in a new buffer: as many pages as reads.
        const copy = packed[i].slice();
        checkRead(keptPrefix(copy, 8_000).upTo(8_000), texts[i], 8_000, 8_000, `page ${i}`);
      }
    }
    assert.ok(keptNow() <= KEPT_BYTES, `${keptNow()} bytes kept`);
  }
  // The same pages over and over: kept ones read back as they were read.
  for (let k = 0; k < 3; k++) {
    for (let i = 0; i < 10; i++) {
      const page = keptPrefix(packed[i], 8_000);
      checkRead(page.upTo(300), texts[i], 300, 8_000, `page ${i}, read ${k}`);
      checkRead(page.upTo(8_000), texts[i], 8_000, 8_000, `page ${i}, read ${k}, whole`);
    }
  }
});
