/**
 * The support check (lib/answers/support.ts): a sentence is kept only where one retrieved
 * passage holds its content words, numbers and names, and negates as it does; citations are
 * moved to the passage that says it.
 */
import assert from "node:assert/strict";
import { checkAnswer, sentencesOf, SupportChecker } from "../../lib/answers/support.ts";
import type { SourceText } from "../../lib/answers/summarizer.ts";

const passages: SourceText[] = [
  {
    n: 1,
    title: "Shipping and delivery",
    text: "We ship within Europe only. Orders placed before 12:00 leave the roastery the same " +
      "day. Delivery to Germany takes 2–3 business days and costs €5.95.",
  },
  {
    n: 2,
    title: "Settings",
    heading: "frob_limit",
    text: "The frob_limit setting caps the memory a sort may use. It defaults to 4 MB. " +
      "Autoescaping is not enabled by default.",
  },
];

Deno.test("support - sentences a passage states are kept, with citations moved to the passage that states them", () => {
  const checker = new SupportChecker(passages);
  const out = checkAnswer(
    checker,
    "Delivery to Germany takes 2–3 business days [2]. The frob_limit setting caps sort memory [2].",
  );
  assert.equal(
    out.answer,
    "Delivery to Germany takes 2–3 business days [1]. The frob_limit setting caps sort memory [2].",
  );
  assert.deepEqual(out.check, { sentences: 2, supported: 2, removed: 0 });
});

Deno.test("support - a made-up sentence, a wrong number, a wrong name and a flipped negation are removed", () => {
  const checker = new SupportChecker(passages);
  const out = checkAnswer(
    checker,
    "We ship within Europe only [1]. We also ship to Canada by air [1]. " +
      "Delivery to Germany costs €7.95 [1]. The frob_max setting caps the memory a sort may use [2]. " +
      "Autoescaping is enabled by default [2].",
  );
  assert.equal(out.answer, "We ship within Europe only [1].");
  assert.deepEqual(out.check, { sentences: 5, supported: 1, removed: 4 });
});

Deno.test("support - a sentence that negates as its passage does is kept; general knowledge is not checked", () => {
  const checker = new SupportChecker(passages);
  const out = checkAnswer(
    checker,
    "Autoescaping is not enabled by default [2].\n\nGeneral knowledge: most template engines escape HTML.",
    { unchecked: (s) => s.startsWith("General knowledge:") },
  );
  assert.match(out.answer, /^Autoescaping is not enabled by default \[2\]\./);
  assert.match(out.answer, /General knowledge: most template engines escape HTML\.$/);
  assert.deepEqual(out.check, { sentences: 2, supported: 1, removed: 0 });
});

Deno.test("support - sentences keep the citations that follow them, and join back into the text", () => {
  const text = "It works. [1] Then it stops [2]. Done.";
  const parts = sentencesOf(text);
  assert.deepEqual(parts, ["It works. [1] ", "Then it stops [2]. ", "Done."]);
  assert.equal(parts.join(""), text);
});
