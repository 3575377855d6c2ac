import assert from "node:assert/strict";
import { findMatches, makeMatcher } from "../../lib/search/engine/presentation/highlight.ts";

/** The words a query's roots mark in a text, as shown. */
const marked = (text: string, words: string[], accented?: boolean) =>
  findMatches(text, makeMatcher(words, []), { accented }).map(([s, e]) => text.slice(s, e));

Deno.test("highlight - a word is marked whole in any case, and not inside another word", () => {
  const text = "Configure the CONFIGURATION; reconfigure nothing. Configuring takes time.";
  assert.deepEqual(marked(text, ["configur"]), ["Configure", "CONFIGURATION", "Configuring"]);
  // Text said to hold no accented letter is marked the same.
  assert.deepEqual(marked(text, ["configur"], false), [
    "Configure",
    "CONFIGURATION",
    "Configuring",
  ]);
});

Deno.test("highlight - a short root marks only whole words; two roots mark each word once, in order", () => {
  assert.deepEqual(marked("Go to GO, not goal or ago.", ["go"]), ["Go", "GO"]);
  assert.deepEqual(marked("Cache keys: KEY_PREFIX and cache_key.", ["cach", "key"]), [
    "Cache",
    "keys",
    "KEY_PREFIX",
    "cache_key",
  ]);
});

Deno.test("highlight - accented letters and the Kelvin sign are marked as their plain letters", () => {
  assert.deepEqual(marked("Un café, CAFÉ et cafe.", ["cafe"]), ["café", "CAFÉ", "cafe"]);
  // U+212A KELVIN SIGN is "k" in lower case.
  assert.deepEqual(marked("Set \u212aelvin or kelvin.", ["kelvin"]), ["\u212aelvin", "kelvin"]);
});

Deno.test("highlight - a word being typed marks every word its forms begin, and a short one only as a whole word", () => {
  const text = "Is it an ISINSTANCE issue? This isn't one; is_a isolates.";
  assert.deepEqual(marked(text, ["is", "isinstanc", "issu", "is_a"]), [
    "Is",
    "ISINSTANCE",
    "issue",
    "is_a",
  ]);
});

Deno.test("highlight - a dashed or dotted name is marked whole, with its parts inside it", () => {
  const text = "Use --NO-REPORT or no report; see os.path and OS.PATH.join, not pos.path.";
  assert.deepEqual(marked(text, ["no-report", "report", "os.path"]), [
    "NO-REPORT",
    "report",
    "os.path",
    "OS.PATH",
  ]);
});
