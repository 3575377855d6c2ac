/**
 * The change marks (lib/storage/change_marks.ts): one read of them renews what every cache read
 * beside them, until a write of what searches trust moves the site's mark.
 */
import assert from "node:assert/strict";
import { ChangeMarks, markKey, readMarked } from "../../lib/storage/change_marks.ts";
import { SiteStore } from "../../lib/sites/store.ts";
import { PageStore } from "../../lib/sites/pages.ts";
import { LeverStore } from "../../lib/levers/store.ts";
import { removeSiteData } from "../../lib/sites/remove.ts";

/** A KV whose getMany calls are counted. */
function counted(kv: Deno.Kv) {
  const calls: Deno.KvKey[][] = [];
  const proxy = new Proxy(kv, {
    get(target, name) {
      if (name !== "getMany") return Reflect.get(target, name, target);
      return (keys: Deno.KvKey[]) => (calls.push(keys), target.getMany(keys));
    },
  });
  return { kv: proxy, calls };
}

/** Two sites whose marks are not the same key. */
function twoShards(): [string, string] {
  const first = "site_a";
  for (let i = 0;; i++) {
    const other = `site_${i}`;
    if (markKey(other)[1] !== markKey(first)[1]) return [first, other];
  }
}

/** Whether the site's mark renews `stamp` by a read of the marks begun after `since`. */
async function renews(marks: ChangeMarks, site: string, stamp: string | null, since: number) {
  await new Promise((r) => setTimeout(r, 5));
  return (await marks.unchanged(site, stamp, performance.now() - since)) !== null;
}

Deno.test("change marks - a read renews what was read with the mark until a write of that site moves it, not another shard's", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const [site, other] = twoShards();
    const marks = new ChangeMarks(kv);
    const since = performance.now();
    const [[entry], stamp] = await readMarked(kv, site, [["x", site]]);
    assert.equal(entry.value, null);
    assert.ok(await renews(marks, site, stamp, since), "nothing written: renewed");
    // Each question below asks for a read of the marks begun after the write before it.
    await kv.atomic().set(markKey(other), true).commit();
    const otherWritten = performance.now();
    assert.ok(await renews(marks, site, stamp, otherWritten), "another shard's write: renewed");
    await kv.atomic().set(markKey(site), true).commit();
    const written = performance.now();
    assert.equal(
      await renews(marks, site, stamp, written),
      false,
      "its own shard moved: read again",
    );
    // The renewed answer is no older than the read that gave it, in whole milliseconds.
    const again = performance.now();
    const [, now] = await readMarked(kv, site, [["x", site]]);
    await new Promise((r) => setTimeout(r, 5));
    const age = await marks.unchanged(site, now, performance.now() - again);
    assert.ok(age !== null && Number.isInteger(age) && age <= performance.now() - again + 1);
  } finally {
    kv.close();
  }
});

Deno.test("change marks - one read of the marks answers every site asking together, and none renews from a read older than its own", async () => {
  const base = await Deno.openKv(":memory:");
  const { kv, calls } = counted(base);
  try {
    const marks = new ChangeMarks(kv);
    const sites = Array.from({ length: 50 }, (_, i) => `site_${i}`);
    const since = performance.now();
    const stamps = await Promise.all(sites.map(async (s) => (await readMarked(kv, s, []))[1]));
    await new Promise((r) => setTimeout(r, 5));
    calls.length = 0;
    const ages = await Promise.all(
      sites.map((s, i) => marks.unchanged(s, stamps[i], performance.now() - since)),
    );
    assert.ok(ages.every((a) => a !== null));
    assert.equal(calls.length, 1, "one getMany for 50 sites");
    assert.equal(calls[0].length, 10, "every mark in it");
    // A value read after that read of the marks is not renewed by it: the marks are read again.
    const later = performance.now();
    await new Promise((r) => setTimeout(r, 5));
    assert.ok(await marks.unchanged(sites[0], stamps[0], performance.now() - later) !== null);
    assert.equal(calls.length, 2);
  } finally {
    base.close();
  }
});

Deno.test("change marks - a read that fails renews nothing", async () => {
  const base = await Deno.openKv(":memory:");
  const failing = new Proxy(base, {
    get(target, name) {
      if (name === "getMany") return () => Promise.reject(new Error("KV is down"));
      return Reflect.get(target, name, target);
    },
  });
  try {
    const since = performance.now();
    const [, stamp] = await readMarked(base, "s", []);
    assert.equal(await renews(new ChangeMarks(failing), "s", stamp, since), false);
  } finally {
    base.close();
  }
});

Deno.test("change marks - every write of what searches trust moves the site's mark: its record, its pages, its levers, its removal", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const sites = new SiteStore(kv, Date.now);
    const pages = new PageStore(kv, Date.now);
    const levers = new LeverStore(kv);
    const stampOf = async (site: string) => (await kv.get(markKey(site))).versionstamp;
    const moves = async (what: string, site: string, write: () => Promise<unknown>) => {
      const before = await stampOf(site);
      await write();
      assert.notEqual(await stampOf(site), before, `${what} moved the mark`);
    };
    const { id } = (await sites.create({ name: "Acme", plan: "free" })).site;
    assert.ok(await stampOf(id), "a new site's mark is written");
    await moves("a settings change", id, () => sites.update(id, (s) => ({ ...s, name: "B" })));
    await moves("a key rotation", id, () => sites.rotate(id, "public"));
    await moves(
      "a page stored",
      id,
      () => pages.upsert(id, { url: "/a", title: "A", body: "x" }, 9),
    );
    await moves("a page removed", id, () => pages.remove(id, "/a"));
    await moves("a synonyms list", id, () => levers.write(id, "synonyms", [{ id: "n" }]));
    await moves("a curations list", id, () => levers.write(id, "curations", []));
    const site = (await sites.get(id))!;
    await moves("the site's removal", id, async () => {
      await sites.delete(site);
      await removeSiteData(kv, site);
    });
  } finally {
    kv.close();
  }
});
