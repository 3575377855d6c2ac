import assert from "node:assert/strict";
import { splitSections } from "../../lib/answers/sections.ts";

Deno.test("sections - heading lines named by the page cut it into sections, in reading order", () => {
  const body = [
    "Intro line before any heading.",
    "Billing",
    "You are billed monthly.",
    "Pausing",
    "You can pause a subscription for up to three months.",
    "Billing", // a line that repeats a heading starts another section of that name
    "Second billing section.",
  ].join("\n");
  const sections = splitSections({
    title: "Help",
    body,
    headings: ["Billing", "Pausing"],
    sections: [
      { heading: "Billing", anchor: "billing" },
      { heading: "Pausing", anchor: "pausing" },
      { heading: "Billing", anchor: "billing-2" },
    ],
  });
  assert.deepEqual(sections.map((s) => [s.heading, s.anchor, s.text]), [
    ["", "", "Intro line before any heading."],
    ["Billing", "billing", "You are billed monthly."],
    ["Pausing", "pausing", "You can pause a subscription for up to three months."],
    ["Billing", "billing-2", "Second billing section."],
  ]);
  assert.deepEqual(sections.map((s) => s.index), [0, 1, 2, 3]);
});

Deno.test("sections - the search index's headings (one a line) work the same, without anchors", () => {
  const body = "Pausing\nYou can pause it.\nCancelling\nCancel any time.";
  const sections = splitSections({ title: "T", body, headings: "Pausing\nCancelling" });
  assert.deepEqual(sections.map((s) => [s.heading, s.anchor, s.text]), [
    ["Pausing", "", "You can pause it."],
    ["Cancelling", "", "Cancel any time."],
  ]);
});

Deno.test("sections - a page with no named headings is cut at Markdown and title-like lines", () => {
  const long =
    "This paragraph is long enough to be a paragraph and not a heading of any kind at all.";
  const body = [
    "# Welcome",
    long,
    "Delivery times",
    long,
    "A short sentence.",
    "- a list item",
    long,
  ].join("\n");
  const sections = splitSections({ title: "T", body });
  assert.deepEqual(sections.map((s) => s.heading), ["Welcome", "Delivery times"]);
  assert.ok(sections[1].text.includes("A short sentence."), "sentences do not start sections");
  assert.ok(sections[1].text.includes("- a list item"));
  assert.deepEqual(splitSections({ title: "T", body: "" }), []);
});

Deno.test("sections - a page with sections splits at their headings even when the index's headings field carries anchors", () => {
  const sections = splitSections({
    title: "FAQ",
    body:
      "Intro line.\nHow do I reset it?\nHold the button for five seconds.\nWhy is it slow?\nIt warms up first.",
    // What the search index keeps: each heading followed by its anchor.
    headings: "How do I reset it? reset\nWhy is it slow? slow",
    sections: [{ heading: "How do I reset it?", anchor: "reset" }, {
      heading: "Why is it slow?",
      anchor: "slow",
    }],
  });
  assert.deepEqual(
    sections.map((s) => [s.heading, s.anchor, s.text]),
    [
      ["", "", "Intro line."],
      ["How do I reset it?", "reset", "Hold the button for five seconds."],
      ["Why is it slow?", "slow", "It warms up first."],
    ],
  );
});
