/**
 * A mistyped identifier whose mistyped part is no word of its own anywhere on the site: the
 * site writes it only inside the identifier, so the correction is the identifier whole.
 */
import assert from "node:assert/strict";
import { rank } from "../../lib/search/engine/query/rank.ts";
import { addDoc, createSiteDb, docAt } from "../../lib/search/engine/store/site_db.ts";

const page = (id: string, title: string, body: string) => ({
  id,
  title,
  description: "",
  headings: "",
  body,
  sections: [],
});

Deno.test("rank - an identifier mistyped in a part the site never writes alone is corrected whole", () => {
  const db = createSiteDb();
  addDoc(db, page("/ref/grinder", "Grinder", "grind_finepowder(beans) grinds to espresso size."));
  addDoc(
    db,
    page("/ref/kettle", "Kettle", "heat_water(litres) boils water for the grinder's beans."),
  );
  addDoc(db, page("/guide", "Guide", "Grind the beans, then heat the water."));
  // "finepowder" is in no page but inside grind_finepowder; the typo swaps two of its letters.
  const r = rank(db, "grind_fienpowder ");
  assert.deepEqual(r.corrections, [{ from: "grind_fienpowder", to: "grind_finepowder" }]);
  assert.equal(docAt(db, r.ids[0], 0).id, "/ref/grinder");
});
