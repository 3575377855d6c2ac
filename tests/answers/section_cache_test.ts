import assert from "node:assert/strict";
import { sectionsOf } from "../../lib/answers/section_cache.ts";

const page = (body: string, anchor = "setup") => ({
  title: "Guide",
  body,
  sections: [{ heading: "Setup", anchor }],
});

Deno.test("section cache - the same page read again gives the same sections, in an array of its own", () => {
  const body = "Intro text.\nSetup\nRun the installer.\n";
  const first = sectionsOf("site-a\0page:/guide", page(body));
  const again = sectionsOf("site-a\0page:/guide", page(body.slice(0) + ""));
  assert.equal(first.length, 2);
  // Scoring keeps its stems on each section: the same objects are what saves the work.
  assert.equal(again[1], first[1]);
  assert.notEqual(again, first);
  again.push({ heading: "Far", anchor: "far", text: "x", index: 9 });
  assert.equal(sectionsOf("site-a\0page:/guide", page(body)).length, 2);
});

Deno.test("section cache - a changed text, anchor or another site's page is read anew", () => {
  const body = "Intro text.\nSetup\nRun the installer.\n";
  const first = sectionsOf("site-b\0page:/guide", page(body));
  const edited = sectionsOf("site-b\0page:/guide", page(body.replace("installer", "setup tool")));
  assert.notEqual(edited[1], first[1]);
  assert.match(edited[1].text, /setup tool/);
  const moved = sectionsOf(
    "site-b\0page:/guide",
    page(body.replace("installer", "setup tool"), "install"),
  );
  assert.equal(moved[1].anchor, "install");
  const other = sectionsOf("site-c\0page:/guide", page(body));
  assert.notEqual(other[1], first[1]);
});

Deno.test("section cache - pages beyond its budget push out the least recently read", () => {
  const big = (n: number) => `Setup\n${"word ".repeat(200_000)}${n}\n`; // 1 MB of text each
  const a = sectionsOf("site-d\0page:/a", page(big(1)));
  sectionsOf("site-d\0page:/b", page(big(2)));
  sectionsOf("site-d\0page:/c", page(big(3)));
  // Three pages of a million characters do not fit in two million: the first was let go.
  assert.notEqual(sectionsOf("site-d\0page:/a", page(big(1)))[0], a[0]);
});

Deno.test("section cache - a page of more than an eighth of the budget is read each time, never pushing out the rest", () => {
  const small = sectionsOf("site-e\0page:/small", page("Intro.\nSetup\nRun it.\n"));
  const huge = `Setup\n${"word ".repeat(60_000)}\n`; // 300,000 characters
  const first = sectionsOf("site-e\0page:/huge", page(huge));
  assert.notEqual(sectionsOf("site-e\0page:/huge", page(huge))[0], first[0]);
  assert.equal(sectionsOf("site-e\0page:/small", page("Intro.\nSetup\nRun it.\n"))[1], small[1]);
});
