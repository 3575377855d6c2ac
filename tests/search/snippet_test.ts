import assert from "node:assert/strict";
import { snippetOf } from "../../lib/search/engine/presentation/highlight.ts";

/** The snippet around `word`'s first occurrence in `text`, and what its first match marks. */
function around(text: string, word: string) {
  const i = text.indexOf(word);
  const h = snippetOf(text, [[i, i + word.length]], 0, text.length);
  assert.ok(h);
  const [s, e] = h.matches[0];
  return { snippet: h.snippet, marked: h.snippet.slice(s, e) };
}

Deno.test("snippet - a heading keeps a separator before its text, and the match stays marked", () => {
  const text =
    "Shipping\nCountries we do not ship to\nWe only ship to the EU. Germany takes 2–3 days.";
  const { snippet, marked } = around(text, "Germany");
  assert.match(snippet, /ship to · We only ship/);
  assert.doesNotMatch(snippet, /ship to We only/);
  assert.equal(marked, "Germany");
});

Deno.test("snippet - lines that end a sentence follow each other after a plain space", () => {
  const text = "Roasting takes twelve minutes.\nCooling takes four.\nStore the beans in a tin.";
  const { snippet, marked } = around(text, "beans");
  assert.match(snippet, /minutes\. Cooling takes four\. Store the beans in a tin\.$/);
  assert.doesNotMatch(snippet, /·/);
  assert.equal(marked, "beans");
});

Deno.test("snippet - a match after several headings is marked where it is shown", () => {
  const text = "A\nB\nC\nD\nThe kettle is hot";
  const { snippet, marked } = around(text, "kettle");
  assert.equal(snippet, "A · B · C · D · The kettle is hot");
  assert.equal(marked, "kettle");
});
