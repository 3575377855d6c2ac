/**
 * A snapshot's head digest: a load hashes only what sits beside the index and the codec's
 * header (the codec's checksum covers the rest), yet a damaged byte anywhere is never served,
 * and a head saved before the head digest existed is still checked whole.
 */
import assert from "node:assert/strict";
import { PageStore } from "../../lib/sites/pages.ts";
import { SearchIndexes } from "../../lib/search/mod.ts";
import { type SnapshotHead, Snapshots } from "../../lib/search/snapshots.ts";
import { randomWords } from "../helpers.ts";

const SITE = "site_digest";

async function saved() {
  const kv = await Deno.openKv(":memory:");
  const pages = new PageStore(kv, Date.now);
  for (let i = 0; i < 30; i++) {
    await pages.upsert(SITE, {
      url: `/p/${i}`,
      title: `Teapot ${i} — Tea Shop`,
      // Long enough for several chunks.
      body: `Teapot ${i} care and descaling.\n${randomWords(i === 0 ? 30_000 : 50)}`,
    }, 1_000);
  }
  const snapshots = new Snapshots(kv, Date.now);
  const ix = new SearchIndexes(pages, { snapshots });
  const expected = await ix.search(SITE, { query: "teapot descaling", perPage: 5 });
  await ix.flush();
  const head = (await snapshots.head(SITE))!;
  return { kv, snapshots, head, expected };
}

Deno.test("snapshot digest - a new head carries the digest of its first bytes, and loads with the same answers", async () => {
  const { kv, snapshots, head, expected } = await saved();
  try {
    assert.match(head.headDigest ?? "", /^[0-9a-f]{64}$/);
    assert.ok(head.chunks >= 3, `${head.chunks} chunks`);
    const loaded = await snapshots.load(SITE, head.version);
    assert.ok(loaded, "loaded");
    const ix = new SearchIndexes(new PageStore(kv, Date.now), {
      snapshots: new Snapshots(kv, Date.now),
    });
    assert.deepEqual(await ix.search(SITE, { query: "teapot descaling", perPage: 5 }), expected);
    assert.deepEqual(ix.opened, { loaded: 1, built: 0 });
  } finally {
    kv.close();
  }
});

Deno.test("snapshot digest - a byte flipped in the names beside the index, in its middle or at its end is never loaded", async () => {
  const { kv, snapshots, head } = await saved();
  try {
    const key = (i: number) => ["snappage", SITE, "chunk", head.gen, i];
    for (
      const [what, chunk, at] of [
        ["the names beside the index", 0, 6],
        ["a middle chunk", 1, 500],
        ["the last byte", head.chunks - 1, -1],
      ] as const
    ) {
      const original = (await kv.get<Uint8Array>(key(chunk))).value!;
      const where = at < 0 ? original.length + at : at;
      await kv.set(key(chunk), original.map((b, i) => i === where ? b ^ 4 : b));
      assert.equal(await snapshots.load(SITE, head.version), null, what);
      await kv.set(key(chunk), original);
    }
  } finally {
    kv.close();
  }
});

Deno.test("snapshot digest - a head saved before head digests is checked by its whole digest", async () => {
  const { kv, snapshots, head } = await saved();
  try {
    const { headDigest: _, ...older } = head;
    const headKey = ["snappage", SITE, "head"];
    await kv.set(headKey, older satisfies SnapshotHead);
    assert.ok(await snapshots.load(SITE, head.version), "an older head still loads");
    await kv.set(headKey, { ...older, digest: "0".repeat(64) });
    assert.equal(await snapshots.load(SITE, head.version), null, "and its digest is checked");
  } finally {
    kv.close();
  }
});
