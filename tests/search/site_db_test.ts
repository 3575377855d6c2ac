import assert from "node:assert/strict";
import { rank } from "../../lib/search/rank.ts";
import { addDoc, createSiteDb, docAt, postings, removeDoc } from "../../lib/search/site_db.ts";

const sections = [{ heading: "Zeppelin.fly(height)", anchor: "air.Zeppelin.fly" }];
const doc = (id: string, body: string) => ({
  id,
  title: "Airships",
  description: "",
  headings: "Zeppelin.fly(height) air.Zeppelin.fly",
  body,
  sections,
});

Deno.test("site db - counts real term frequencies, and removal takes every trace out", () => {
  const db = createSiteDb();
  const body = "It’s “quoted” — the zeppelin flies.\nZeppelin.fly(height)\nA zeppelin, a zeppelin.";
  addDoc(db, doc("/a", body));
  addDoc(db, { ...doc("/b", "Boats float on café water."), sections: [], headings: "" });
  const [a] = rank(db, "zeppelin").ids;
  assert.equal(db.index.get("body", a, "zeppelin"), 4, "every use counted");
  assert.equal(docAt(db, a).body, body, "text kept exactly");
  assert.equal(docAt(db, a).headings, "Zeppelin.fly(height) air.Zeppelin.fly");
  assert.equal(db.vocab.get("zeppelin.fly"), 2, "words as written, dotted names whole");
  removeDoc(db, "/a");
  assert.deepEqual(rank(db, "zeppelin").ids, []);
  assert.deepEqual([...postings(db, "headings", "zeppelin")], [], "no document left");
  assert.equal(db.vocab.has("zeppelin"), false);
  assert.equal(db.index.totals.body, db.index.lengths.body.get(db.byId.get("/b")!));
  addDoc(db, doc("/a", body));
  assert.equal(rank(db, "zeppelin").ids.length, 1);
  assert.equal(docAt(db, rank(db, "cafe").ids[0]).id, "/b", "diacritics folded");
});
