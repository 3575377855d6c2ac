/**
 * Index snapshots: a decoded index answers every query as the one it was encoded from,
 * takes further upserts and deletes alike, and damaged or foreign bytes throw.
 */
import assert from "node:assert/strict";
import { DEMO_PAGES } from "../../lib/demo/pages.ts";
import { rank } from "../../lib/search/engine/query/rank.ts";
import {
  addDoc,
  createSiteDb,
  type Doc,
  docAt,
  docCount,
  headingsText,
  removeDoc,
  type SiteDb,
} from "../../lib/search/engine/store/site_db.ts";
import {
  CODEC_VERSION,
  decodeSiteDb,
  encodeSiteDb,
} from "../../lib/search/engine/snapshot_codec.ts";

/** The demo pages, with sections from their `## ` lines, and pages in other scripts. */
function docs(): Doc[] {
  const out: Doc[] = DEMO_PAGES.map((p, i) => {
    const sections = [...p.body.matchAll(/^## (.+)$/gm)].map((m) => ({
      heading: m[1],
      anchor: i % 2 ? m[1].toLowerCase().replace(/\W+/g, "-") : "",
    }));
    return {
      id: p.url,
      title: p.title,
      description: p.description,
      headings: headingsText(sections),
      body: p.body.replace(/^## /gm, ""),
      sections,
      codeShare: i % 5 === 0 ? 0.9 : undefined,
      prior: i % 5 === 0 ? 0.3 : undefined,
    };
  });
  out.push(
    {
      id: "/ru",
      title: "Чайник",
      description: undefined as unknown as string,
      headings: "",
      body: "Электрический чайник кипятит воду быстро. Чайники бывают разные.",
      lang: "ru",
    },
    {
      id: "/ja",
      title: "お茶の淹れ方",
      description: "",
      headings: "",
      body: "緑茶は八十度のお湯で淹れます。",
      lang: "ja",
    },
    {
      id: "/de",
      title: "Kaffeemühle",
      description: "Über Mühlen",
      headings: "Mahlgrad",
      body: "Mahlgrad\nDie Kaffeemühle mahlt Bohnen für Café crème. Müller’s Röstung.",
      lang: "de-AT",
      sections: [{ heading: "Mahlgrad", anchor: "mahlgrad" }],
    },
    {
      id: "/latin1",
      title: "Crème brûlée",
      description: "",
      headings: "",
      body: "Plain Latin-1 text: crème, café, naïve, get_object_or_404 and shop.http.",
    },
  );
  return out;
}

const QUERIES = [
  "coffee",
  "espresso beans",
  "refund policy",
  "gift card",
  "roast",
  "ro",
  "shipping internat",
  "cofee",
  "subscriptoin",
  "чайник",
  "緑茶",
  "kaffeemuhle",
  "mahlgrad",
  "cafe",
  "get_objcet_or_404",
  "shop.http",
  "the",
  "zzzz nothing",
];

/** Everything a search shows, with documents by their ids. */
function answers(db: SiteDb) {
  return QUERIES.map((q) => {
    const r = rank(db, q, { limit: 10 });
    return {
      q,
      found: r.found,
      corrections: r.corrections,
      matched: r.matched,
      docs: r.ids.map((id) => {
        const d = docAt(db, id, 500);
        return {
          ...d,
          headings: d.headings,
          tf: r.matched.map((t) => db.index.get("body", id, t) + db.index.get("headings", id, t)),
        };
      }),
    };
  });
}

Deno.test("snapshot codec - a decoded index answers every query as the original, and stays so after the same upserts and deletes", () => {
  const db = createSiteDb();
  for (const d of docs()) addDoc(db, d);
  removeDoc(db, DEMO_PAGES[3].url); // a hole the encoder closes
  const want = answers(db);
  assert.ok(want.filter((a) => a.docs.length).length >= 12, "most queries find pages");
  const bytes = encodeSiteDb(db);
  const copy = decodeSiteDb(bytes);
  assert.deepEqual(answers(copy), want);
  assert.equal(docCount(copy), docCount(db));
  assert.deepEqual(new Map(copy.vocab.entries()), new Map(db.vocab.entries()));
  assert.deepEqual(copy.langs, db.langs);
  assert.deepEqual(copy.prior, db.prior);
  assert.deepEqual(copy.trigrams.bits, db.trigrams.bits);
  assert.deepEqual(encodeSiteDb(copy), bytes, "encoding again gives the same bytes");

  // The same changes on both: a page replaced, one deleted, one added.
  for (const target of [db, copy]) {
    const first = docs()[0];
    addDoc(target, { ...first, body: first.body + "\nNow with a decaf espresso option." });
    removeDoc(target, DEMO_PAGES[5].url);
    removeDoc(target, "/ru");
    addDoc(target, {
      id: "/new",
      title: "Espresso tonic",
      description: "",
      headings: "",
      body: "Espresso tonic: espresso over tonic water and ice.",
    });
  }
  assert.deepEqual(answers(copy), answers(db));
  assert.ok(rank(copy, "tonic water").ids.some((id) => docAt(copy, id).id === "/new"));
  assert.equal(rank(copy, "чайник").ids.length, 0);
  const sorted = (v: SiteDb["vocab"]) => [...v.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  assert.deepEqual(sorted(decodeSiteDb(encodeSiteDb(copy)).vocab), sorted(db.vocab));
});

Deno.test("snapshot codec - an empty index round-trips", () => {
  const copy = decodeSiteDb(encodeSiteDb(createSiteDb()));
  assert.equal(docCount(copy), 0);
  assert.deepEqual(rank(copy, "anything").ids, []);
  addDoc(copy, { id: "/a", title: "Alpha", description: "", headings: "", body: "alpha beta" });
  assert.deepEqual(rank(copy, "beta").ids.map((id) => docAt(copy, id).id), ["/a"]);
});

Deno.test("snapshot codec - damaged, truncated, foreign or other-version bytes throw", () => {
  const db = createSiteDb();
  for (const d of docs()) addDoc(db, d);
  const bytes = encodeSiteDb(db);
  assert.throws(() => decodeSiteDb(new Uint8Array()), /corrupt/);
  assert.throws(() => decodeSiteDb(bytes.subarray(0, bytes.length - 8)), /corrupt/);
  assert.throws(() => decodeSiteDb(new TextEncoder().encode("{}".repeat(20))), /corrupt/);
  // A flipped bit anywhere (header, strings, postings, bodies).
  for (let i = 0; i < 40; i++) {
    const at = Math.floor((i / 40) * bytes.length);
    const bad = bytes.slice();
    bad[at] ^= 1 << (i % 8);
    assert.throws(() => decodeSiteDb(bad), Error, `byte ${at}`);
  }
  const other = bytes.slice();
  new DataView(other.buffer).setUint32(4, CODEC_VERSION + 1, true);
  assert.throws(() => decodeSiteDb(other), /version/);
  // Unaligned input still decodes.
  const shifted = new Uint8Array(bytes.length + 3);
  shifted.set(bytes, 3);
  assert.equal(docCount(decodeSiteDb(shifted.subarray(3))), docCount(db));
});

Deno.test("snapshot codec - bodies kept elsewhere: the same answers and text, and nothing of the bytes given is held", () => {
  const db = createSiteDb();
  for (const d of docs()) addDoc(db, d);
  const bytes = encodeSiteDb(db);
  const given: Uint8Array[] = [];
  // Kept as a host would: a copy, read back by range as a copy each time.
  const copy = decodeSiteDb(bytes, {
    keepBodies(b) {
      given.push(b);
      const kept = b.slice();
      return { byteLength: kept.length, read: (from, to) => kept.slice(from, to) };
    },
  });
  assert.equal(given.length, 1, "the bodies are handed over once");
  assert.ok(given[0].length > 0 && given[0].length < bytes.length);
  assert.deepEqual(answers(copy), answers(db));
  for (const id of rank(db, "coffee").ids) {
    assert.equal(docAt(copy, id).body, docAt(db, id).body, "a page's whole text reads back");
  }
  // What the index reads in place is a copy without the bodies, not the bytes it was given.
  const cols = (copy.docs as unknown as { cols: { text: Uint8Array } }).cols;
  assert.notEqual(cols.text.buffer, bytes.buffer);
  assert.deepEqual(encodeSiteDb(copy), bytes, "encoding again gives the same bytes");
  // It takes further changes as the original does.
  for (const target of [db, copy]) {
    removeDoc(target, DEMO_PAGES[2].url);
    addDoc(target, {
      id: "/n",
      title: "Cold brew",
      description: "",
      headings: "",
      body: "cold brew",
    });
  }
  assert.deepEqual(answers(copy), answers(db));
});
