/** A restarted instance opens the indexes its predecessor held, before anyone searches them. */
import assert from "node:assert/strict";
import { PageStore } from "../../lib/sites/pages.ts";
import { noteArrival, SearchIndexes, Snapshots, WorkingSet } from "../../lib/search/mod.ts";
import { noteSearch } from "../../lib/search/activity.ts";

const TOPICS = ["kettle", "teapot", "saucer"];

/** Three sites of a few pages each, in a KV of their own. */
async function rig() {
  const kv = await Deno.openKv(":memory:");
  const pages = new PageStore(kv, Date.now);
  for (const topic of TOPICS) {
    for (let i = 0; i < 4; i++) {
      await pages.upsert(`site_${topic}`, {
        url: `/${topic}/${i}`,
        title: `The ${topic} ${i}`,
        body: `How to clean the ${topic}, part ${i}. Rinse it and dry it.`,
      }, 10_000);
    }
  }
  /** An instance's indexes on this KV: nothing in memory yet. */
  const instance = (budget = Infinity) =>
    new SearchIndexes(pages, { budget, snapshots: new Snapshots(kv, Date.now) });
  return { kv, pages, instance };
}

const site = (topic: string) => `site_${topic}`;

Deno.test("working set - a new instance opens the sites the last one held from their snapshots, most recent first, and answers alike", async () => {
  const { kv, instance } = await rig();
  const before = instance();
  for (const topic of [...TOPICS, TOPICS[0]]) {
    await before.search(site(topic), { query: topic });
  }
  await before.flush(); // every index saved as a snapshot
  await new WorkingSet(kv, before, "page").save();

  const after = instance();
  const set = new WorkingSet(kv, after, "page");
  assert.deepEqual(await set.read(), [site("kettle"), site("saucer"), site("teapot")]);
  assert.equal(await set.restore(), 3);
  assert.deepEqual(after.opened, { loaded: 3, built: 0 }, "loaded, not built");
  assert.deepEqual(after.inUse(10), [site("kettle"), site("saucer"), site("teapot")]);
  // Searches find them open: nothing more is loaded, and the answers are the same.
  for (const topic of TOPICS) {
    assert.deepEqual(
      await after.search(site(topic), { query: `clean ${topic}` }),
      await before.search(site(topic), { query: `clean ${topic}` }),
    );
  }
  assert.deepEqual(after.opened, { loaded: 3, built: 0 });
  await Promise.all([before.idle(), after.idle()]);
  kv.close();
});

Deno.test("working set - a restore stays within its bytes and the free budget, and never evicts a site searched since", async () => {
  const { kv, instance } = await rig();
  const before = instance();
  for (const topic of TOPICS) await before.search(site(topic), { query: topic });
  await before.flush();
  const one = before.held().bytes / TOPICS.length;

  // Room for about two: a visitor's search comes first, then the restore of all three.
  const after = instance(2.5 * one);
  await after.search(site("saucer"), { query: "saucer" });
  const opened = await after.reopen([site("teapot"), site("kettle"), site("saucer")], Infinity);
  assert.equal(opened, 1, "only what the budget had free");
  assert.deepEqual(after.inUse(10), [site("saucer"), site("teapot")]);
  assert.ok(after.held().bytes <= 2.5 * one);

  // Bytes of its own: none of these snapshots fits in 100 bytes.
  const small = instance();
  assert.equal(await small.reopen(TOPICS.map(site), 100), 0);
  assert.equal(small.loaded, 0);
  await Promise.all([before.idle(), after.idle()]);
  kv.close();
});

Deno.test("working set - sites with no snapshot and a malformed list open nothing and build nothing", async () => {
  const { kv, pages, instance } = await rig();
  const ix = instance();
  const set = new WorkingSet(kv, ix, "page");
  // Never searched here, so never saved: it has pages but no snapshot; the others do not exist.
  await kv.set(["config", "workingset", "page"], {
    sites: [site("kettle"), "site_gone", 42, "x".repeat(500), null],
  });
  assert.deepEqual(await set.read(), [site("kettle"), "site_gone"]);
  assert.equal(await set.restore(), 0);
  assert.deepEqual(ix.opened, { loaded: 0, built: 0 });
  for (const value of [null, "sites", { sites: "kettle" }, [1, 2]]) {
    await kv.set(["config", "workingset", "page"], value);
    assert.deepEqual(await set.read(), []);
    assert.equal(await set.restore(), 0);
  }
  assert.equal(ix.loaded, 0);
  assert.equal((await pages.version(site("kettle"))).pages, 4, "its pages are still there");
  kv.close();
});

Deno.test("working set - nothing held writes nothing, and an unchanged list is not written again", async () => {
  const { kv, instance } = await rig();
  const ix = instance();
  const set = new WorkingSet(kv, ix, "page");
  const key = ["config", "workingset", "page"];
  await set.save();
  assert.equal(
    (await kv.get(key)).versionstamp,
    null,
    "an instance that held nothing keeps the list",
  );
  await ix.search(site("teapot"), { query: "teapot" });
  await set.save();
  const first = await kv.get(key);
  assert.deepEqual(first.value, { sites: [site("teapot")] });
  await set.save();
  assert.equal((await kv.get(key)).versionstamp, first.versionstamp);
  await ix.search(site("saucer"), { query: "saucer" });
  await set.close();
  assert.deepEqual((await kv.get(key)).value, { sites: [site("saucer"), site("teapot")] });
  await ix.idle();
  ix.discard();
  kv.close();
});

/**
 * Reopens the three sites while `note` is called every 50 ms for 600 ms: only the first opens
 * meanwhile (told open at once through `firstDone`), the others once the notes stop.
 */
async function reopenWhile(note: () => void) {
  const { kv, instance } = await rig();
  const before = instance();
  for (const topic of TOPICS) await before.search(site(topic), { query: topic });
  await before.flush();
  const after = instance();
  const noting = setInterval(note, 50);
  note();
  let firstOpen: string[] | undefined;
  const restored = after.reopen(TOPICS.map(site), Infinity, () => firstOpen ??= after.inUse(10));
  await new Promise((r) => setTimeout(r, 600));
  assert.deepEqual(
    firstOpen,
    [site(TOPICS[0])],
    "told once the first was open, not after the rest",
  );
  assert.deepEqual(after.inUse(10), [site(TOPICS[0])], "only the first, at once");
  clearInterval(noting);
  assert.equal(await restored, 3);
  assert.equal(after.loaded, 3);
  await Promise.all([before.idle(), after.idle()]);
  kv.close();
}

Deno.test("working set - after the first site a restore waits while searches come, and goes on once they pause; the first is told open at once", async () => {
  await reopenWhile(noteSearch); // searches of other sites
});

Deno.test("working set - a restore waits as well while requests arrive whose route is not known yet", async () => {
  await reopenWhile(noteArrival); // the HTTP server's accepts (main.ts)
});
