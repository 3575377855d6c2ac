import assert from "node:assert/strict";
import { splitPassages } from "../../lib/answers/passages.ts";

const words = (s: string) => s.split(/\s+/).filter(Boolean);
const sentence = (i: number, n = 10) =>
  Array.from({ length: n - 1 }, (_, j) => `w${i}x${j}`).join(" ") + ` end${i}.`;

Deno.test("passages - every word is kept once, in order, and no passage exceeds the limit", () => {
  const text = [
    "# Title",
    "",
    Array.from({ length: 40 }, (_, i) => sentence(i)).join(" "),
    "",
    "Short line",
    Array.from({ length: 300 }, (_, i) => `run${i}`).join(" "), // one "sentence" of 300 words
    "",
    "## Closing",
    "Last words here.",
  ].join("\n");
  for (const max of [20, 50, 200]) {
    const passages = splitPassages(text, max);
    assert.deepEqual(passages.flatMap(words), words(text.replace(/^# /m, "# ")));
    for (const p of passages) assert.ok(words(p).length <= max, `${words(p).length} > ${max}`);
  }
  assert.deepEqual(splitPassages(""), []);
  assert.deepEqual(splitPassages("\n \n"), []);
});

Deno.test("passages - small paragraphs are merged up to the limit", () => {
  const text = Array.from({ length: 10 }, (_, i) => sentence(i)).join("\n\n");
  const passages = splitPassages(text, 50);
  assert.equal(passages.length, 2);
  assert.deepEqual(passages.map((p) => words(p).length), [50, 50]);
});

Deno.test("passages - a long paragraph is cut at sentence ends", () => {
  const text = Array.from({ length: 12 }, (_, i) => sentence(i, 10)).join(" ");
  const passages = splitPassages(text, 35);
  for (const p of passages) assert.match(p, /end\d+\.$/);
  assert.deepEqual(passages.map((p) => words(p).length), [30, 30, 30, 30]);
});

Deno.test("passages - a heading starts a new passage and never ends one", () => {
  const section = (name: string) => `## ${name}\n\n${sentence(1, 30)}\n\n${sentence(2, 30)}`;
  const passages = splitPassages(
    [section("Alpha"), section("Beta"), section("Gamma")].join("\n\n"),
    200,
  );
  assert.deepEqual(passages.map((p) => p.split("\n")[0]), ["## Alpha", "## Beta", "## Gamma"]);
  // Extracted page text: one block per line, headings as short lines without a full stop.
  const page = [
    "Shipping",
    sentence(1, 40),
    sentence(2, 40),
    "Returns",
    sentence(3, 40),
    sentence(4, 40),
  ].join("\n");
  const cut = splitPassages(page, 100);
  assert.deepEqual(cut.map((p) => p.split("\n")[0]), ["Shipping", "Returns"]);
  // Near the limit, a heading that would end a passage moves on with its text.
  const tight = splitPassages(`${sentence(1, 45)}\nNext part\n${sentence(2, 40)}`, 50);
  assert.deepEqual(tight.map((p) => p.split("\n")[0].split(" ")[0]), ["w1x0", "Next"]);
});

Deno.test("passages - splits 40,000 characters of page text in a few milliseconds", () => {
  const text = Array.from({ length: 600 }, (_, i) => i % 8 === 0 ? `Section ${i}` : sentence(i, 12))
    .join("\n");
  assert.ok(text.length > 40_000);
  splitPassages(text);
  const t0 = performance.now();
  for (let i = 0; i < 20; i++) splitPassages(text);
  const ms = (performance.now() - t0) / 20;
  assert.ok(ms < 10, `${ms.toFixed(2)} ms per split`);
});
