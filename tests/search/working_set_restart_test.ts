/**
 * main.ts as `deno task start` runs it: an instance stopped as Deploy stops it (SIGINT) leaves
 * its working set in KV, and the next one on that KV opens the most recently used site's index
 * before its port opens: the first request it answers finds the index held.
 */
import assert from "node:assert/strict";
import { type Instance, startMain } from "../fixtures/instance.ts";

const TOKEN = "op_working_set_test_token";

const asOperator = { headers: { Authorization: `Bearer ${TOKEN}` } };

async function pagesIndexes(inst: Instance) {
  const res = await fetch(`${inst.url}/api/admin/stats`, asOperator);
  assert.equal(res.status, 200);
  return (await res.json()).indexes.pages as { inMemory: number; loaded: number; built: number };
}

async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean) {
  for (let waited = 0; waited < 15_000; waited += 100) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`waited 15 s for ${what}`);
}

async function searchOf(inst: Instance) {
  const res = await fetch(`${inst.url}/api/search?q=shipping&key=${inst.publicKey}`);
  assert.equal(res.status, 200);
  return (await res.json()).results.map((r: { url: string }) => r.url);
}

Deno.test("working set - an instance stopped with SIGINT leaves its sites in KV; the next opens the latest one's index before its port opens", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/restart.kv`;
  const kv = await Deno.openKv(kvPath);
  const first = await startMain({ KV_PATH: kvPath }, { operatorToken: TOKEN });
  let second: Instance | undefined;
  try {
    const sites = await (await fetch(`${first.url}/api/admin/sites`, asOperator)).json();
    const siteId: string = sites.sites[0].id;
    const found = await searchOf(first);
    assert.ok(found.length > 0, "the demo site answers");
    // Its index is saved as a snapshot a second after it is built.
    await until("the snapshot", () => kv.get(["snappage", siteId, "head"]), (e) => !!e.value);
    assert.equal((await first.signal("SIGINT")).code, 0);
    const list = await kv.get<{ sites: string[] }>(["config", "workingset", "page"]);
    assert.deepEqual(list.value?.sites, [siteId], "written as the instance stopped");

    second = await startMain({ KV_PATH: kvPath }, { operatorToken: TOKEN });
    // The first request the new instance answers: not waited for, the index is already there.
    const held = await pagesIndexes(second);
    assert.deepEqual(
      { loaded: held.loaded, inMemory: held.inMemory, built: held.built },
      { loaded: 1, inMemory: 1, built: 0 },
    );
    assert.deepEqual(await searchOf(second), found);
    const after = await pagesIndexes(second);
    assert.deepEqual([after.loaded, after.built], [1, 0], "the search opened nothing more");
  } finally {
    await first.stop();
    await second?.stop();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
