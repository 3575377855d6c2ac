import assert from "node:assert/strict";
import { createSite, indexBytesOf, putPages, search, startApp } from "../helpers.ts";

const WORDS = ["teapot", "kettle", "saucer", "grinder"];

Deno.test("eviction - under a tiny index budget only the last site stays in memory, and every answer is still right", async () => {
  const t = await startApp({ indexMemoryBytes: 1 });
  const sites = [];
  for (const word of WORDS) {
    const site = await createSite(t, "pro", word);
    await putPages(t, site, [
      { url: `/${word}`, title: `The ${word}`, body: `All about the ${word}.` },
      { url: `/${word}/care`, title: `${word} care`, body: `Clean the ${word} weekly.` },
    ]);
    sites.push(site);
  }
  for (let round = 0; round < 2; round++) {
    for (const [i, site] of sites.entries()) {
      const res = await search(t, site.publicKey, `q=${WORDS[i]}&per_page=10`);
      assert.equal(res.status, 200);
      assert.deepEqual(
        res.body.results.map((r: { url: string }) => r.url.split("#")[0]).sort(),
        [`/${WORDS[i]}`, `/${WORDS[i]}/care`],
      );
      // Another site's word finds nothing here, evicted or not.
      const other = await search(t, site.publicKey, `q=${WORDS[(i + 1) % WORDS.length]}`);
      assert.equal(other.body.meta.found, 0);
      assert.equal(t.services.indexes.loaded, 1, "the others were evicted");
    }
  }
  t.close();
});

/** Four sites of two pages each (all alike but for a word), with index memory for about three. */
async function fourSitesRoomForThree() {
  const one = await indexBytesOf([
    { url: "/grinder", title: "grinder", body: "grinder" },
    { url: "/grinder/b", title: "grinder", body: "grinder" },
  ]);
  const t = await startApp({ indexMemoryBytes: 3.5 * one });
  const sites = [];
  for (const word of WORDS) {
    const site = await createSite(t, "pro", word);
    await putPages(t, site, [
      { url: `/${word}`, title: word, body: word },
      { url: `/${word}/b`, title: word, body: word },
    ]);
    sites.push(site);
  }
  return { t, sites };
}

Deno.test("eviction - with room for three sites a fourth evicts one, and an evicted site is rebuilt from KV", async () => {
  const { t, sites } = await fourSitesRoomForThree();
  for (const [i, site] of sites.slice(0, 3).entries()) {
    await search(t, site.publicKey, `q=${WORDS[i]}`);
  }
  assert.equal(t.services.indexes.loaded, 3);
  await search(t, sites[0].publicKey, `q=${WORDS[0]}`); // site 0 is now the most recent
  await search(t, sites[3].publicKey, `q=${WORDS[3]}`); // over budget: site 1 goes
  assert.equal(t.services.indexes.loaded, 3);
  const again = await search(t, sites[1].publicKey, `q=${WORDS[1]}`); // rebuilt from KV
  assert.equal(again.body.meta.found, 2);
  t.close();
});

Deno.test("eviction - a site searched many times in a row stays the most recent; the least recently searched goes", async () => {
  const { t, sites } = await fourSitesRoomForThree();
  // Each search asks a page size of its own: none is answered from the result cache, which
  // answers without the index.
  let asked = 1;
  const ask = (i: number) => search(t, sites[i].publicKey, `q=${WORDS[i]}&per_page=${++asked}`);
  const ids = sites.map((s) => s.id);
  for (const i of [0, 1, 2, 2, 2, 0, 2]) assert.equal((await ask(i)).body.meta.found, 2);
  assert.deepEqual(t.services.indexes.inUse(3), [ids[2], ids[0], ids[1]]);
  await ask(3); // over budget: site 1, searched longest ago, goes
  assert.deepEqual(t.services.indexes.inUse(4), [ids[3], ids[2], ids[0]]);
  await ask(3);
  await ask(0);
  await ask(1); // rebuilt from KV; site 2 goes
  assert.deepEqual(t.services.indexes.inUse(4), [ids[1], ids[0], ids[3]]);
  assert.equal((await ask(2)).body.meta.found, 2);
  t.close();
});
