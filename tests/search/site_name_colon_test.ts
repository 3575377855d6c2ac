/**
 * A manual whose every page title opens with the manual's name and a colon ("Acme manual:
 * 3. Setup"), through the real API: results show each page's own title, as for a name after
 * a dash or a bar, and a colon inside one page's title is left alone.
 */
import assert from "node:assert/strict";
import { admin, createSite, search, startApp } from "../helpers.ts";

const CHAPTERS = [
  ["/ch1", "Acme manual: 1. Introduction", "What the press does and who it is for."],
  ["/ch2", "Acme manual: 2. Installing the press", "Bolt the press to a bench."],
  ["/ch3", "Acme manual: 3. Pressing", "Load the hopper and pull the lever."],
  ["/ch4", "Acme manual: 4. Cleaning", "Rinse the basket after each pressing."],
  ["/notes", "Release notes: what changed", "Each release made pressing quieter."],
];

Deno.test("ranking - titles drop a manual's name that heads them before a colon, and keep a colon of their own", async () => {
  const t = await startApp();
  try {
    const s = await createSite(t, "business");
    const pages = CHAPTERS.map(([url, title, body]) => ({ url, title, body }));
    const res = await t.call(`/api/admin/sites/${s.id}/pages`, {
      ...admin(s.adminKey, { pages }),
      method: "PUT",
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
    const titles = async (q: string) => {
      const { status, body } = await search(t, s.publicKey, `q=${encodeURIComponent(q)}`);
      assert.equal(status, 200);
      return body.results.map((r: { title: string }) => r.title);
    };
    assert.deepEqual(await titles("bench"), ["2. Installing the press"]);
    assert.deepEqual(await titles("hopper"), ["3. Pressing"]);
    // One page's own colon is no shared name: its title is kept whole.
    assert.deepEqual(await titles("quieter"), ["Release notes: what changed"]);
  } finally {
    t.close();
  }
});
