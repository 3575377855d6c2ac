import assert from "node:assert/strict";
import { rank } from "../../lib/search/engine/query/rank.ts";
import { scoreCacheBytes } from "../../lib/search/engine/query/bm25.ts";
import {
  addDoc,
  createSiteDb,
  docAt,
  heldBytes,
  postings,
  removeDoc,
  seal,
} from "../../lib/search/engine/store/site_db.ts";
import { decodeSiteDb, encodeSiteDb } from "../../lib/search/engine/snapshot_codec.ts";
import { FIELDS } from "../../lib/search/engine/store/postings.ts";
import { randomWords } from "../helpers.ts";

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
  assert.equal(db.index.totals.body, db.index.lengths.body.get(db.docs.idOf("/b")!));
  addDoc(db, doc("/a", body));
  assert.equal(rank(db, "zeppelin").ids.length, 1);
  assert.equal(docAt(db, rank(db, "cafe").ids[0]).id, "/b", "diacritics folded");
});

Deno.test("site db - held bytes count each page's packed text and come back down when pages go", () => {
  const db = createSiteDb();
  const empty = heldBytes(db);
  const latin = randomWords(3_000, 1); // ~19,500 one-byte characters
  addDoc(db, doc("/a", latin));
  const one = heldBytes(db);
  assert.ok(one - empty >= latin.length / 2, `${one - empty} bytes for ${latin.length} characters`);
  addDoc(db, doc("/b", randomWords(3_000, 2, "абвгдежзиклмнопрстуфхцчшщэюя")));
  const two = heldBytes(db);
  assert.ok(two - one >= 20_000, `${two - one} bytes for ~39,000 bytes of UTF-8`);
  removeDoc(db, "/b");
  seal(db);
  assert.ok(heldBytes(db) < two - 15_000, "a removed page's text no longer counts");
  const prose = "The zeppelin flies over the harbour while the boats float below it. ".repeat(300);
  addDoc(db, doc("/c", prose));
  assert.ok(heldBytes(db) - heldBytes(createSiteDb()) < one + prose.length / 4, "text is deflated");
  assert.equal(docAt(db, db.docs.idOf("/c")!).body, prose);
});

Deno.test("site db - a decoded index reads its documents in place from the one buffer it was given", () => {
  const db = createSiteDb();
  const wide = ["“a” zeppelin", "“b” zeppelin", "“c” zeppelin"];
  wide.forEach((body, i) => addDoc(db, doc(`/w${i}`, body)));
  addDoc(db, doc("/latin", "plain zeppelin ".repeat(500)));
  const bytes = encodeSiteDb(db);
  const decoded = decodeSiteDb(bytes);
  const docs = [...decoded.docs.entries()].map(([, d]) => d);
  assert.deepEqual(docs.map((d) => d.id), ["/w0", "/w1", "/w2", "/latin"]);
  assert.ok(
    docs.every((d) => typeof d.body !== "string" && d.body.buffer === bytes.buffer),
    "every body is a view of the snapshot's bytes",
  );
  assert.ok(
    FIELDS.every((f) => decoded.index.fields[f].table.bytes.buffer === bytes.buffer),
    "every field's terms are a view of the snapshot's bytes",
  );
  assert.equal(decoded.index.fields.body.table.indexOf("zeppelin") >= 0, true);
  assert.deepEqual(
    [...decoded.docs.entries()].map(([id]) => docAt(decoded, id).body),
    [...wide, "plain zeppelin ".repeat(500)],
  );
  assert.equal(heldBytes(decoded) >= bytes.length, true, "the buffer is counted");
  // Beside the buffer: a few small arrays (each field's empty recent part) and strings.
  assert.ok(heldBytes(decoded) < bytes.length + 8_000, "and counted once, not once a view");
  // A snapshot of the decoded index decodes to one counted the same.
  assert.equal(heldBytes(decodeSiteDb(encodeSiteDb(decoded))), heldBytes(decoded));
});

Deno.test("site db - the scores ranking keeps for common words are counted, and bounded by the site's size", () => {
  const db = createSiteDb();
  for (let i = 0; i < 60; i++) addDoc(db, doc(`/p${i}`, `common word ${i} and shared text`));
  assert.equal(scoreCacheBytes(db), 0);
  rank(db, "common shared");
  const kept = scoreCacheBytes(db);
  assert.ok(kept >= 2 * 60 * 12, `${kept} bytes for two words in 60 pages`);
  for (let i = 0; i < 60; i++) rank(db, `common ${i} word text`);
  assert.ok(scoreCacheBytes(db) <= 50 * 60 * 12 + 400 * 60, "at most 50 scores a page");
});
