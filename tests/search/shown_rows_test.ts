/**
 * What a result shows of a page read back from a snapshot (its title, description, sections
 * and anchors), decoded once and kept for the next result showing it (store/shown_rows.ts):
 * shown again it is the same, each index shows its own pages, a page changed since shows its
 * new fields, and what is kept stays within its bound.
 */
import assert from "node:assert/strict";
import { addDoc, createSiteDb, type Doc, type SiteDb } from "../../lib/search/engine/mod.ts";
import { search } from "../../lib/search/engine/presentation/results.ts";
import { decodeSiteDb, encodeSiteDb } from "../../lib/search/engine/snapshot_codec.ts";
import { DocStore } from "../../lib/search/engine/store/doc_store.ts";
import { keepShown, keptShown, type ShownParts } from "../../lib/search/engine/store/shown_rows.ts";
import { NO_SECTIONS } from "../../lib/search/engine/store/packed_sections.ts";

/** A manual page with three anchored sections, each a line of its text. */
function page(name: string, title = `${name} manual`): Doc {
  const sections = [
    { heading: "Installing the kettle", anchor: `${name}-install` },
    { heading: "Descaling the kettle", anchor: `${name}-descale` },
    { heading: "Warranty", anchor: `${name}-warranty` },
  ];
  const body = sections.map((s) =>
    `${s.heading}\nHow the ${name} model handles ${s.heading.toLowerCase()}, step by step. `
      .repeat(3)
  ).join("\n");
  return {
    id: `/${name}`,
    title,
    description: `All about the ${name} kettle.`,
    headings: sections.map((s) => s.heading).join("\n"),
    body,
    sections,
  };
}

function site(docs: Doc[]): SiteDb {
  const db = createSiteDb();
  for (const d of docs) addDoc(db, d);
  return db;
}

const loaded = (docs: Doc[]) => decodeSiteDb(encodeSiteDb(site(docs)));

Deno.test("shown rows - a page read from a snapshot shows the same title, description, sections and anchors each time, as before it was saved", () => {
  const docs = ["alpha", "beta", "gamma"].map((n) => page(n));
  const built = site(docs), db = loaded(docs);
  for (const q of ["descaling kettle", "warranty", "installing"]) {
    const expected = search(built, { query: q });
    const first = search(db, { query: q }), again = search(db, { query: q });
    assert.deepEqual(first, expected, q);
    assert.deepEqual(again, expected, q);
  }
  // The anchors are the page's own: a section's URL names its anchor.
  const hit = search(db, { query: "descaling" }).hits.find((h) => h.url.startsWith("/beta"));
  assert.ok(hit?.sections.some((s) => s.url === "/beta#beta-descale"), JSON.stringify(hit));
});

Deno.test("shown rows - two indexes read from snapshots each show their own pages, though their rows are numbered alike", () => {
  const one = loaded([page("alpha", "Alpha kettle")]);
  const two = loaded([page("omega", "Omega kettle")]);
  for (let round = 0; round < 2; round++) {
    assert.equal(search(one, { query: "kettle" }).hits[0].title, "Alpha kettle");
    assert.equal(search(two, { query: "kettle" }).hits[0].title, "Omega kettle");
    assert.equal(search(two, { query: "kettle" }).hits[0].url, "/omega");
  }
});

Deno.test("shown rows - a page changed after its index was read back shows its new title and description", () => {
  const db = loaded([page("alpha", "Alpha kettle")]);
  assert.equal(search(db, { query: "kettle" }).hits[0].title, "Alpha kettle");
  addDoc(db, { ...page("alpha", "Alpha kettle, second edition"), description: "Revised." });
  const hit = search(db, { query: "kettle" }).hits[0];
  assert.equal(hit.title, "Alpha kettle, second edition");
  assert.equal(hit.description, "Revised.");
});

Deno.test("shown rows - a row is kept when it is shown a second time, not the first", () => {
  const docs = new DocStore();
  const parts: ShownParts = {
    id: "/once",
    title: "Once",
    description: "",
    accented: false,
    sections: NO_SECTIONS,
  };
  keepShown(docs, 3, parts);
  assert.equal(keptShown(docs, 3), undefined);
  keepShown(docs, 3, parts);
  assert.equal(keptShown(docs, 3)?.id, "/once");
  // Another index's row of the same number was not shown yet.
  const other = new DocStore();
  keepShown(other, 3, parts);
  assert.equal(keptShown(other, 3), undefined);
});

Deno.test("shown rows - what is kept stays within its bound: rows shown once go first, a row shown again since gets a second turn", () => {
  const docs = new DocStore();
  // Each row holds some 100,000 characters: a dozen are more than is kept.
  const parts = (row: number): ShownParts => ({
    id: `/page${row}`,
    title: `Page ${row}`,
    description: "",
    accented: false,
    sections: { ...NO_SECTIONS, headings: "x".repeat(100_000) },
  });
  // A row is kept when it is shown a second time.
  const show = (
    row: number,
  ) => (keepShown(docs, row, parts(row)), keepShown(docs, row, parts(row)));
  show(0);
  show(1);
  assert.equal(keptShown(docs, 0)?.id, "/page0"); // shown again
  for (let row = 2; row < 12; row++) show(row);
  assert.equal(keptShown(docs, 1), undefined);
  assert.equal(keptShown(docs, 0)?.id, "/page0");
  assert.equal(keptShown(docs, 11)?.id, "/page11");
  // However many are kept, the characters held stay within the bound (~1,000,000).
  for (let row = 12; row < 60; row++) show(row);
  let held = 0;
  for (let row = 0; row < 60; row++) held += keptShown(docs, row) ? 100_000 : 0;
  assert.ok(held <= 1_000_000, `${held} characters kept`);
  assert.ok(held > 0);
});
