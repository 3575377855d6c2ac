import assert from "node:assert/strict";
import { rank } from "../../lib/search/rank.ts";
import { addDoc, createSiteDb, docAt, indexData, removeDoc } from "../../lib/search/site_db.ts";
import { TfStore } from "../../lib/search/tf_store.ts";

Deno.test("tf store - finds a token's frequency by binary search and forgets dropped documents", () => {
  const tf = new TfStore();
  tf.take("body", 7, { zebra: 0.25, apple: 0.5, mango: 0.125 });
  assert.equal(tf.get("body", 7, "apple"), 0.5);
  assert.equal(tf.get("body", 7, "mango"), 0.125);
  assert.equal(tf.get("body", 7, "zebra"), 0.25);
  assert.equal(tf.get("body", 7, "kiwi"), 0);
  assert.equal(tf.get("title", 7, "apple"), 0);
  tf.drop(7);
  assert.equal(tf.get("body", 7, "apple"), 0);
});

Deno.test("site db - text with curly quotes is kept packed, shown whole, and removed cleanly", () => {
  const db = createSiteDb();
  const body = "It’s “quoted” — and the zeppelin flies ☕. ".repeat(50);
  addDoc(db, { id: "/a", title: "Airships", description: "", headings: "", body });
  addDoc(db, {
    id: "/b",
    title: "Boats",
    description: "",
    headings: "",
    body: "plain latin-1 café text about boats",
  });
  const [a] = rank(db, "zeppelin").ids;
  assert.equal(docAt(db, a).body, body, "unpacked exactly");
  const start = docAt(db, a, 10).body;
  assert.ok(
    body.startsWith(start) && start.length >= 10 && start.length <= 30,
    "or about its start",
  );
  assert.equal(indexData(db).frequencies.body[a], undefined, "Orama's own copy is dropped");
  removeDoc(db, "/a");
  assert.deepEqual(rank(db, "zeppelin").ids, [], "every token of the packed text left the index");
  assert.equal(indexData(db).tokenOccurrences.body["zeppelin"], 0);
  addDoc(db, { id: "/a", title: "Airships", description: "", headings: "", body });
  assert.equal(rank(db, "zeppelin").ids.length, 1);
  assert.equal(docAt(db, rank(db, "boats").ids[0]).body, "plain latin-1 café text about boats");
});

Deno.test("rank - exact words before prefixes, typos only when nothing matches, more words first", () => {
  const db = createSiteDb();
  addDoc(db, {
    id: "/form",
    title: "Forms",
    description: "",
    headings: "",
    body: "How a form works.",
  });
  addDoc(db, {
    id: "/formset",
    title: "Formsets",
    description: "",
    headings: "",
    body: "Many formsets.",
  });
  addDoc(db, {
    id: "/both",
    title: "Model forms",
    description: "",
    headings: "",
    body: "A model form and its fields.",
  });
  const complete = rank(db, "form ").ids.map((id) => docAt(db, id).id);
  assert.ok(!complete.includes("/formset"), "a complete word does not expand to formsets");
  assert.equal(rank(db, "formse").ids.length, 1, "the word being typed expands");
  const two = rank(db, "model form ").ids.map((id) => docAt(db, id).id);
  assert.equal(two[0], "/both", "the page with both words first");
  const typo = rank(db, "fomsets");
  assert.deepEqual(typo.corrections, ["formset"]);
  assert.equal(docAt(db, typo.ids[0]).id, "/formset");
});
