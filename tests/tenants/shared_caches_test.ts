/**
 * What one process keeps across every site's indexes (the names pages state, their passages)
 * is keyed by a digest of each page's whole text: a page of one site can never hand its
 * definitions to another's, even when it holds the same path and is forged to look alike
 * wherever a sample of its bytes would be read.
 */
import assert from "node:assert/strict";
import { createSite, putPages, startApp } from "../helpers.ts";
import { addDoc, createSiteDb } from "../../lib/search/engine/mod.ts";
import { forgetStated, statedEquivalences } from "../../lib/search/engine/query/stated.ts";

const names = (list: { words: [string, string] }[]) => list.map((e) => e.words.join(" = "));

/** Text of exactly `n` ASCII characters: `lead`, then filler words. */
function padded(lead: string, n: number): string {
  let text = lead;
  while (text.length < n) text += " more text about the service";
  return text.slice(0, n);
}

Deno.test("shared caches - a page forged to match another site's page at the same path, byte for byte at every other position, gets none of its stated names", () => {
  forgetStated();
  // Short text is kept as its bytes: every other byte of it is the same in both pages, and
  // their lengths are too, so a key made from a sample of the bytes could not tell them apart.
  const original = padded(
    "Our Content Delivery Network (CDN) serves every page. The CDN is fast.",
    511,
  );
  const forged = [...original].map((c, i) => i % 2 ? (c === "z" ? "y" : "z") : c).join("");
  assert.equal(forged.length, original.length);
  assert.notEqual(forged, original);

  const victim = createSiteDb(), attacker = createSiteDb();
  const page = { id: "/guide", title: "Guide", description: "", headings: "" };
  addDoc(victim, { ...page, body: original });
  addDoc(attacker, { ...page, body: forged });
  assert.ok(names(statedEquivalences(victim)).includes("cdn = content delivery network"));
  assert.deepEqual(names(statedEquivalences(attacker)), [], "the forged page states nothing");

  // And the other way round, in a process where the forged page was read first.
  forgetStated();
  const attacker2 = createSiteDb(), victim2 = createSiteDb();
  addDoc(attacker2, { ...page, body: forged });
  addDoc(victim2, { ...page, body: original });
  assert.deepEqual(names(statedEquivalences(attacker2)), []);
  assert.ok(names(statedEquivalences(victim2)).includes("cdn = content delivery network"));
});

Deno.test("shared caches - two sites holding the same path with different text each search and state their own", async () => {
  const t = await startApp();
  try {
    const [a, b] = [await createSite(t, "business"), await createSite(t, "business")];
    const section = (long: string) =>
      `Introduction\n\nThe ${long} (CDN) keeps copies near readers.\n\n` +
      Array.from({ length: 60 }, (_, i) => `Line ${i} says more about the ${long}.`).join("\n");
    await putPages(t, a, [{
      url: "/guide",
      title: "Guide",
      headings: ["Introduction"],
      body: section("Content Delivery Network"),
    }]);
    await putPages(t, b, [{
      url: "/guide",
      title: "Guide",
      headings: ["Introduction"],
      body: section("Customer Data Notebook"),
    }]);
    const stated = async (site: { id: string }) => names(await t.services.indexes.stated(site.id));
    assert.ok((await stated(a)).includes("cdn = content delivery network"));
    assert.ok(!(await stated(a)).includes("cdn = customer data notebook"));
    assert.ok((await stated(b)).includes("cdn = customer data notebook"));
    assert.ok(!(await stated(b)).includes("cdn = content delivery network"));

    // Each site's search finds its own words, and never the other's.
    const hits = async (site: { publicKey: string }, q: string) => {
      const res = await t.call(`/api/search?key=${site.publicKey}&q=${encodeURIComponent(q)}`);
      return (await res.json()).meta.found as number;
    };
    assert.equal(await hits(a, "delivery network"), 1);
    assert.equal(await hits(a, "customer notebook"), 0);
    assert.equal(await hits(b, "customer notebook"), 1);
    assert.equal(await hits(b, "delivery network"), 0);
  } finally {
    await t.close();
  }
});
