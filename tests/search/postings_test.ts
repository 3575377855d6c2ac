/**
 * The typed-array index against a naive reference (document → field → term → count) over
 * random inserts, replacements, removals and lookups, exact and prefix, with seals falling
 * wherever the index decides, on an index built in place and on a snapshot's decoded copy.
 */
import assert from "node:assert/strict";
import {
  addDoc,
  createSiteDb,
  type Doc,
  docAt,
  docCount,
  postings,
  removeDoc,
  seal,
  type SiteDb,
} from "../../lib/search/engine/store/site_db.ts";
import { type Field, FIELDS } from "../../lib/search/engine/store/postings.ts";
import { countTerms } from "../../lib/search/engine/analysis/tokens.ts";
import { decodeSiteDb, encodeSiteDb } from "../../lib/search/engine/snapshot_codec.ts";
import { seeded } from "../fixtures/seeded.ts";

/** Words sharing prefixes (so prefix lookups cover several terms), none a stop word. */
const WORDS = ("kettle kettles kettledrum teapot teal teak tea-cup cupboard cup cups mug " +
  "brew brewer brewing steep steeper leaf leaves saucer sauce spoon spoonful oolong " +
  "ab abc abcd abcde zeta zed zz_top café cafés " +
  // Beyond Latin-1, and on both sides of the surrogates (UTF-16 order is not code point order).
  "чай чайник 한글 ｆｕｌｌ ｆｕ 𝔘nicode 𝔘ni").split(" ");

function randomDoc(rand: () => number, id: string): Doc {
  const text = (n: number) =>
    Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(" ");
  return {
    id,
    title: text(1 + Math.floor(rand() * 3)),
    description: rand() < 0.5 ? text(Math.floor(rand() * 5)) : "",
    headings: text(Math.floor(rand() * 4)),
    body: text(Math.floor(rand() * 40)),
  };
}

type Reference = Map<string, Record<Field, Map<string, number>>>;

function reference(doc: Doc): Record<Field, Map<string, number>> {
  const out = {} as Record<Field, Map<string, number>>;
  for (const f of FIELDS) out[f] = countTerms(doc[f], "en").counts;
  return out;
}

/** What the reference says a lookup finds: term → doc id → count, terms in order. */
function expected(ref: Reference, field: Field, token: string, prefix: boolean) {
  const out = new Map<string, Map<string, number>>();
  for (const [id, fields] of ref) {
    for (const [term, n] of fields[field]) {
      if (prefix ? !term.startsWith(token) : term !== token) continue;
      if (!out.has(term)) out.set(term, new Map());
      out.get(term)!.set(id, n);
    }
  }
  return [...out.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([term, docs]) => ({
    term,
    docs: [...docs.entries()].sort(([a], [b]) => (a < b ? -1 : 1)),
  }));
}

/** What the index finds, in the same shape. */
function actual(db: SiteDb, field: Field, token: string, prefix: boolean) {
  return [...postings(db, field, token, prefix)].map((h) => {
    const ids = [...h.ids];
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b), "ids ascending");
    return {
      term: h.term,
      docs: ids.map((id, i) => [docAt(db, id).id, h.tfs[i]] as [string, number])
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    };
  });
}

Deno.test("postings - random inserts, replacements and removals find what a naive reference finds, exactly and by prefix", () => {
  const rand = seeded(42);
  let db = createSiteDb();
  const ref: Reference = new Map();
  const tokens = [...new Set(WORDS.flatMap((w) => [...countTerms(w, "en").counts.keys()]))];
  const prefixes = [...new Set(tokens.flatMap((t) => [t.slice(0, 1), t.slice(0, 2), t]))];
  let lookups = 0, seals = 0;
  for (let step = 0; step < 4000; step++) {
    const r = rand();
    const id = `/p/${Math.floor(rand() * 300)}`;
    if (r < 0.45) {
      const doc = randomDoc(rand, id);
      addDoc(db, doc); // a page of the same id is replaced
      ref.set(id, reference(doc));
    } else if (r < 0.6) {
      removeDoc(db, id);
      ref.delete(id);
    } else {
      const changed = db.index.changed;
      const field = FIELDS[Math.floor(rand() * FIELDS.length)];
      const prefix = rand() < 0.5;
      const token = prefix
        ? prefixes[Math.floor(rand() * prefixes.length)]
        : tokens[Math.floor(rand() * tokens.length)];
      assert.deepEqual(actual(db, field, token, prefix), expected(ref, field, token, prefix));
      if (changed && !db.index.changed) seals++;
      lookups++;
    }
    // Twice, the index goes on as a snapshot's decoded copy (documents read in place).
    if (step === 1500 || step === 3000) db = decodeSiteDb(encodeSiteDb(db));
    if (step % 97 === 0) {
      assert.equal(docCount(db), ref.size);
      for (const [id, fields] of ref) {
        const internal = db.docs.idOf(id)!;
        for (const f of FIELDS) {
          let length = 0;
          for (const [term, n] of fields[f]) {
            assert.equal(db.index.get(f, internal, term), n, `${id} ${f} ${term}`);
            length += n;
          }
          assert.equal(db.index.lengths[f].get(internal), length);
        }
      }
      for (const f of FIELDS) {
        let total = 0;
        for (const fields of ref.values()) for (const n of fields[f].values()) total += n;
        assert.equal(db.index.totals[f], total, `total of ${f}`);
      }
    }
  }
  assert.ok(lookups > 1000 && seals > 10, `${lookups} lookups, ${seals} seals`);
});

Deno.test("postings - a seal numbers the live documents densely and keeps every lookup the same", () => {
  const rand = seeded(7);
  const db = createSiteDb();
  for (let i = 0; i < 50; i++) addDoc(db, randomDoc(rand, `/d/${i}`));
  for (let i = 0; i < 50; i += 3) removeDoc(db, `/d/${i}`);
  const before = FIELDS.map((f) => actual(db, f, "te", true));
  seal(db);
  assert.equal(db.index.changed, false);
  assert.equal(db.index.slots, docCount(db), "no holes left");
  assert.deepEqual([...db.docs.entries()].map(([id]) => id), [...Array(docCount(db)).keys()]);
  assert.ok([...db.docs.entries()].every(([id, d]) => db.docs.idOf(d.id) === id));
  assert.deepEqual(FIELDS.map((f) => actual(db, f, "te", true)), before);
  assert.deepEqual([...postings(db, "body", "nothing-at-all")], []);
});

Deno.test("postings - ids take 16 bits up to 65,536 pages and 32 beyond, and a snapshot keeps either", () => {
  const db = createSiteDb();
  const page = (i: number): Doc => ({
    id: `/p/${i}`,
    title: i % 1000 === 0 ? `rare ${i}` : "common",
    description: "",
    headings: "",
    body: "",
  });
  for (let i = 0; i < 65_536; i++) addDoc(db, page(i));
  seal(db);
  assert.ok(db.index.fields.title.ids instanceof Uint16Array);
  addDoc(db, page(65_536));
  addDoc(db, page(70_000));
  seal(db);
  assert.ok(db.index.fields.title.ids instanceof Uint32Array);
  for (const copy of [db, decodeSiteDb(encodeSiteDb(db))]) {
    const [hit] = [...postings(copy, "title", "70000", false)];
    assert.deepEqual([...hit.ids].map((id) => docAt(copy, id).id), ["/p/70000"]);
    assert.equal([...postings(copy, "title", "common", false)][0].ids.length, 65_471);
  }
  const small = createSiteDb();
  for (let i = 0; i < 10; i++) addDoc(small, page(i * 1000));
  const copy = decodeSiteDb(encodeSiteDb(small));
  assert.ok(copy.index.fields.title.ids instanceof Uint16Array);
  assert.deepEqual([...postings(copy, "title", "rare", false)][0].ids.length, 10);
});
