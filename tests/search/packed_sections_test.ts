import assert from "node:assert/strict";
import {
  packSections,
  soundSections,
  unpackSections,
} from "../../lib/search/engine/store/packed_sections.ts";

Deno.test("packed sections - read back as given, anchors kept only when a section has one", () => {
  assert.equal(packSections(undefined), undefined);
  assert.equal(packSections([]), undefined);
  const plain = [{ heading: "Install", anchor: "" }, { heading: "", anchor: "" }, {
    heading: "Überblick",
    anchor: "",
  }];
  const p = packSections(plain)!;
  assert.equal(p.anchors, "");
  assert.ok(soundSections(p));
  assert.deepEqual(unpackSections(p), plain);
  const anchored = [{ heading: "HttpRequest", anchor: "shop.http.HttpRequest" }, {
    heading: "Notes",
    anchor: "",
  }];
  const q = packSections(anchored)!;
  assert.ok(soundSections(q));
  assert.deepEqual(unpackSections(q), anchored);
  assert.deepEqual(unpackSections(undefined), []);
});

Deno.test("packed sections - a line break inside a heading does not shift the others; a wrong count is unsound", () => {
  const p = packSections([{ heading: "Two\nlines", anchor: "a" }, {
    heading: "Next",
    anchor: "b",
  }])!;
  assert.deepEqual(unpackSections(p), [{ heading: "Two lines", anchor: "a" }, {
    heading: "Next",
    anchor: "b",
  }]);
  assert.ok(!soundSections({ ...p, count: 3 }));
  assert.ok(!soundSections({ ...p, anchors: "a" }));
  assert.ok(!soundSections({ count: 0, headings: "", anchors: "" }));
});
