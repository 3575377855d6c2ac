import assert from "node:assert/strict";
import { contentTerms } from "../../lib/answers/analysis.ts";

Deno.test("answers analysis - a question's content terms stay the same after the memo of words has turned over", () => {
  const question = "How do I Configure the CACHES setting for shop.orders.refunds?";
  const before = contentTerms(question);
  assert.ok(before.length >= 4, JSON.stringify(before));
  // Far more distinct words than the memo keeps, in every case variant a page may write them.
  for (let i = 0; i < 3; i++) {
    const page = Array.from({ length: 15_000 }, (_, j) => `Word${i}x${j} word${i}x${j}`).join(" ");
    contentTerms(page);
  }
  assert.deepEqual(contentTerms(question), before);
  // Case and filler are read the same whether a word is new or remembered.
  assert.deepEqual(contentTerms("CONFIGURE caches"), contentTerms("configure Caches"));
  assert.deepEqual(contentTerms("please tell us"), []);
});
