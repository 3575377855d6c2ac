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

Deno.test("sections - a page whose lines carry stray spaces or Windows line ends is cut exactly as the same page written cleanly", () => {
  const lines = [
    "Intro line before any heading.",
    "Billing",
    "You are billed monthly.",
    "",
    "Invoices come by e-mail.",
    "Pausing",
    "You can pause a subscription for up to three months.",
    "Billing",
    "Second billing section.",
  ];
  const sections = [
    { heading: "Billing", anchor: "billing" },
    { heading: "Pausing", anchor: "pausing" },
    { heading: "Billing", anchor: "billing-2" },
  ];
  const cut = (body: string) =>
    splitSections({ title: "Help", body, sections }).map((s) => [s.heading, s.anchor, s.text]);
  const clean = cut(lines.join("\n"));
  assert.deepEqual(clean, [
    ["", "", "Intro line before any heading."],
    ["Billing", "billing", "You are billed monthly.\n\nInvoices come by e-mail."],
    ["Pausing", "pausing", "You can pause a subscription for up to three months."],
    ["Billing", "billing-2", "Second billing section."],
  ]);
  assert.deepEqual(cut(lines.join("\r\n")), clean, "Windows line ends");
  // Indented past the first heading: the anchors still go to the headings in reading order.
  const indented = lines.map((l, i) => (i >= 4 ? `  ${l}\u00a0` : l)).join("\n");
  assert.deepEqual(cut(indented), clean, "stray spaces");
  assert.deepEqual(cut(lines.join("\n") + "\n\n"), clean, "blank lines at the end");
});

Deno.test("sections - a page ending on a heading keeps that heading as a section of its own", () => {
  const sections = splitSections({
    title: "T",
    body: "Some text first.\nLast heading",
    sections: [{ heading: "Last heading", anchor: "last" }],
  });
  assert.deepEqual(sections.map((s) => [s.heading, s.anchor, s.text]), [
    ["", "", "Some text first."],
    ["Last heading", "last", ""],
  ]);
});
