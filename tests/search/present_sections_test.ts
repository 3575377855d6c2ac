/**
 * A result's sections read in place (packed_sections.ts `SectionLines`): the headings that
 * name the query are the sections shown, each links to its own anchor, and the result links
 * to the one section that names the query better than the page's title, near the top of a
 * long page or far down it; a page read back from a snapshot shows the same.
 */
import assert from "node:assert/strict";
import { addDoc, createSiteDb, type SiteDb } from "../../lib/search/engine/mod.ts";
import { search } from "../../lib/search/engine/presentation/results.ts";
import { decodeSiteDb, encodeSiteDb } from "../../lib/search/engine/snapshot_codec.ts";

const filler = (topic: string, n: number) =>
  `Notes on ${topic} for every day, with examples worth reading. `.repeat(n);

/** A page whose sections' headings are lines of its body, each with an anchor (or none). */
function page(id: string, title: string, sections: [string, string, string][]) {
  const body = sections.map(([heading, , text]) => `${heading}\n${text}`).join("\n");
  return {
    id,
    title,
    description: "",
    body,
    headings: sections.map(([h]) => h).join("\n"),
    sections: sections.map(([heading, anchor]) => ({ heading, anchor })),
  };
}

function site(): SiteDb {
  const db = createSiteDb();
  addDoc(
    db,
    page("/guide", "Coffee guide", [
      ["Beans", "beans", filler("beans", 3)],
      ["Grinder calibration", "grinder-calibration", "Turn the grinder dial. " + filler("dial", 3)],
      ["Water", "", filler("water", 3)],
      // Far down the page: past what a result reads first.
      ["Milk", "milk", filler("milk", 200)],
      ["Descaling the kettle", "descaling", "Use citric acid. " + filler("acid", 3)],
    ]),
  );
  addDoc(db, page("/other", "Tea", [["Leaves", "leaves", filler("leaves", 5)]]));
  return db;
}

Deno.test("present sections - a heading that names the query is shown as a section with its own anchor, and the result links to it", () => {
  const hit = search(site(), { query: "grinder calibration" }).hits[0];
  assert.equal(hit.url, "/guide#grinder-calibration");
  assert.deepEqual(hit.sections.map((s) => [s.title, s.url]), [[
    "Grinder calibration",
    "/guide#grinder-calibration",
  ]]);
  assert.match(hit.sections[0].snippet, /Turn the grinder dial/);
});

Deno.test("present sections - a heading far down a long page is found, linked and shown with its own text", () => {
  const hit = search(site(), { query: "descaling" }).hits[0];
  assert.equal(hit.url, "/guide#descaling");
  assert.equal(hit.sections[0]?.title, "Descaling the kettle");
  assert.equal(hit.sections[0]?.url, "/guide#descaling");
  assert.match(hit.sections[0].snippet, /citric acid/);
});

Deno.test("present sections - a section without an anchor links to the page, and the others keep theirs", () => {
  const hit = search(site(), { query: "water" }).hits[0];
  const water = hit.sections.find((s) => s.title === "Water");
  assert.ok(water, "the Water section is shown");
  assert.equal(water.url, "/guide");
});

Deno.test("present sections - a page read back from a snapshot shows the same sections and links", () => {
  const built = site();
  const loaded = decodeSiteDb(encodeSiteDb(built));
  for (const q of ["grinder calibration", "descaling", "water", "milk", "beans", "leaves"]) {
    const want = search(built, { query: q });
    assert.ok(want.hits.length > 0, `"${q}" finds pages`);
    assert.deepEqual(search(loaded, { query: q }), want, `"${q}"`);
  }
});

Deno.test("present sections - the section headed by the query's rare name is the link, though other headings hold its qualifier words", () => {
  const db = createSiteDb();
  // Every chapter speaks of configuration parameters: those words only qualify the query.
  for (let i = 0; i < 20; i++) {
    addDoc(
      db,
      page(`/chapter${i}`, `Chapter ${i}`, [[
        `Chapter ${i}`,
        "",
        `${filler("brewing", 3)} Each configuration parameter of chapter ${i} is listed here.`,
      ]]),
    );
  }
  addDoc(
    db,
    page("/resources", "Resource consumption", [
      ["Memory configuration parameters", "memory", filler("memory", 4)],
      [
        "frob_limit (integer)",
        "guc-frob-limit",
        `Caps the memory a sort uses. ${filler("sorts", 2)}`,
      ],
      ["Other configuration parameters", "other", filler("disks", 4)],
    ]),
  );
  const hit = search(db, { query: "frob_limit configuration parameter " }).hits[0];
  assert.equal(hit.url, "/resources#guc-frob-limit");
  assert.equal(hit.sections[0]?.title, "frob_limit (integer)");
});
