/** When a result's snippet only repeats its description, the results pages show one of them. */
import assert from "node:assert/strict";
import type { Highlight } from "../../lib/wire_types.ts";
import { repeats, withoutRepeat } from "../../widget/client/repeats.ts";

const DESC = "Shipping to Germany takes two to four business days with DHL.";

Deno.test("repeats - the snippet cut from the start of the description repeats it", () => {
  assert.ok(repeats(DESC, "…Shipping to Germany takes two to four business days…"));
  assert.ok(repeats(DESC, "shipping to germany takes two to four"), "a part of it, lower-cased");
});

Deno.test("repeats - case, spacing and ellipses of either side do not matter", () => {
  assert.ok(repeats("  SHIPPING to\n Germany …", "...shipping   to germany"));
  assert.ok(repeats("Shipping...to Germany", "Shipping … to Germany"));
});

Deno.test("repeats - one holding the other repeats it, whichever is longer", () => {
  const longer = `${DESC} Orders placed before noon leave the same day.`;
  assert.ok(repeats(DESC, longer));
  assert.ok(repeats(longer, DESC));
});

Deno.test("repeats - texts sharing nearly all their words repeat, though worded apart", () => {
  // The snippet ends a word early and marks the query: the same words, punctuated otherwise.
  assert.ok(repeats(DESC, "Shipping to Germany takes two to four business days, with DHL"));
  assert.ok(repeats(DESC, "…to Germany takes two to four business days with DHL Express."));
});

Deno.test("repeats - a different text does not repeat, though it shares a few words", () => {
  assert.ok(!repeats(DESC, "Returns from Germany are free within 30 days of delivery."));
  assert.ok(!repeats(DESC, "…4–7 business days, €13.95…"));
  // Half the words alike is not nearly all.
  assert.ok(!repeats(DESC, "Shipping to Austria takes a week with the national post service."));
});

Deno.test("repeats - a few words alike prove nothing unless one text holds the other", () => {
  assert.ok(repeats("Kettles", "Quiet kettles for tea"), "a word held whole");
  assert.ok(!repeats("Kettle", "Quiet kettles for tea"), "part of a word is not held");
  assert.ok(repeats("Quiet kettles", "Our quiet kettles boil fast"), "held whole");
  assert.ok(!repeats("kettles quiet", "Our quiet kettles boil fast"), "not in that order");
  assert.ok(!repeats("tea kettles boil", "boil kettles for tea and coffee"), "three words");
});

Deno.test("repeats - nothing repeats an empty text", () => {
  assert.ok(!repeats("", DESC));
  assert.ok(!repeats(DESC, " … "));
});

const h = (field: Highlight["field"], snippet: string, marks = 0): Highlight => ({
  field,
  snippet,
  matches: Array.from({ length: marks }, (_, i) => [i, i + 1] as [number, number]),
});

Deno.test("repeats - a repeat shows one text: the body unless the description marks more", () => {
  const desc = h("description", DESC);
  const body = h("body", "…Shipping to Germany takes two to four business days…", 2);
  assert.deepEqual(withoutRepeat(desc, body), { description: null, body });
  const marked = h("description", DESC, 3);
  assert.deepEqual(withoutRepeat(marked, body), { description: marked, body: null });
});

Deno.test("repeats - different texts, or a missing one, are shown as they are", () => {
  const desc = h("description", DESC);
  const body = h("body", "Returns are free within 30 days of delivery.", 1);
  assert.deepEqual(withoutRepeat(desc, body), { description: desc, body });
  assert.deepEqual(withoutRepeat(null, body), { description: null, body });
  assert.deepEqual(withoutRepeat(desc, null), { description: desc, body: null });
});
