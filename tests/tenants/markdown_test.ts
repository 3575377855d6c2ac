/**
 * An uploaded Markdown document is read by regular expressions over text its owner chose: no
 * line may make them backtrack. Each input below took seconds (the heading, cubic in its
 * spaces) or hundreds of milliseconds (unclosed marks, quadratic in the line), and held the
 * one parser Worker every site's crawls and uploads share.
 */
import assert from "node:assert/strict";
import { markdownText } from "../../lib/parsing/markdown.ts";

Deno.test("markdown - lines built to make its patterns backtrack are read in linear time", () => {
  const hostile = {
    "a heading of spaces": "# a" + " ".repeat(20_000) + "x",
    "unclosed strong marks": "**a ".repeat(32_000),
    "unclosed links": "[a](".repeat(32_000),
    "unclosed images": "![a](".repeat(32_000),
    "unclosed emphasis": "*a ".repeat(32_000),
    "a run of closing hashes": "# " + "#".repeat(50_000) + "x",
  };
  for (const [name, text] of Object.entries(hostile)) {
    const t0 = performance.now();
    markdownText(text);
    const ms = performance.now() - t0;
    assert.ok(ms < 500, `${name}: ${ms.toFixed(0)} ms`);
  }
});

Deno.test("markdown - headings, emphasis, code and links still read as text", () => {
  const { text, title } = markdownText(
    "# Kettle care ##\n\n## Descaling # often\n\n### C#\n\n" +
      "Use **vinegar** or *citric acid*, run `descale()`, see [the guide](/guide) " +
      "and ![a photo](k.png); __init__ loses its marks, snake_case_name keeps them.\n",
  );
  assert.equal(title, "Kettle care");
  assert.equal(
    text,
    "Kettle care\n\nDescaling # often\n\nC#\n\n" +
      "Use vinegar or citric acid, run descale(), see the guide and a photo; init loses its " +
      "marks, snake_case_name keeps them.",
  );
});
