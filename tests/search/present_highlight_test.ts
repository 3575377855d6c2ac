/**
 * Matches found without a match object per match (highlight.ts `collect`): where a match
 * starts is worked out from where the expression says it ends, so roots that end alike, that
 * hold one another or a dot, and matches side by side must each be marked as written.
 */
import assert from "node:assert/strict";
import { findMatches, makeMatcher } from "../../lib/search/engine/presentation/highlight.ts";

/** The words the query's words mark in a text of ASCII letters, as shown. */
const marked = (text: string, words: string[]) =>
  findMatches(text, makeMatcher(words, []), { accented: false }).map(([s, e]) => text.slice(s, e));

Deno.test("present highlight - a root that ends another root's word is marked only where a word starts with it", () => {
  // "del" ends "model": "model" is marked once as itself, "delta" and "Delete" by "del".
  assert.deepEqual(marked("model delta, remodel; Delete MODELS", ["model", "del"]), [
    "model",
    "delta",
    "Delete",
    "MODELS",
  ]);
});

Deno.test("present highlight - dotted names and words side by side are each marked as written, in any case", () => {
  // The dotted name is marked as typed, and the part after it by its own word.
  assert.deepEqual(
    marked("Use os.path.join(os.PATH) then OS.Path.Join; path join", ["os.path", "join"]),
    ["os.path", "join", "os.PATH", "OS.Path", "Join", "join"],
  );
  assert.deepEqual(marked("teateapot tea-pot TEA pot", ["tea", "pot"]), [
    "teateapot",
    "tea",
    "pot",
    "TEA",
    "pot",
  ]);
});

Deno.test("present highlight - a short word is marked only as a whole word, wherever a longer one ends", () => {
  assert.deepEqual(marked("go going ago Go, GO! cargo", ["go"]), ["go", "Go", "GO"]);
});

Deno.test("present highlight - a one-word query marks each word it starts, to the word's end, and nothing inside a word", () => {
  // Letters of any script before a match put it inside a word; after it, they belong to it.
  assert.deepEqual(marked("Model, models; remodel 日model model日本 MODEL_X", ["model"]), [
    "Model",
    "models",
    "model日本",
    "MODEL_X",
  ]);
  assert.deepEqual(marked("go going 日go go日 GO", ["go"]), ["go", "GO"]);
  assert.deepEqual(
    marked("os.path os.pathname xos.path os.path.os.path", ["os.path"]),
    ["os.path", "os.pathname", "os.path", "os.path"],
  );
});
