/**
 * A typo in a question is read as search corrects it, wherever the word stands: any case,
 * next to punctuation.
 */
import assert from "node:assert/strict";
import { admin, createSite, startApp } from "../helpers.ts";

const PAGES = [
  {
    url: "/guide/grinding",
    title: "Grinding coffee",
    body:
      "A burr grinder gives an even grind. Grind fine for a moka pot and coarse for a French press, and weigh the beans first.",
  },
  {
    url: "/guide/kettles",
    title: "Choosing a kettle",
    body:
      "A gooseneck kettle pours slowly and evenly. Heat the water to 94 degrees before you pour it over the grounds.",
  },
];

Deno.test("answers - a typo in any case and next to punctuation ('Grindre?', 'GRINDRE,') is answered as search corrects it", async () => {
  const t = await startApp();
  try {
    const site = await createSite(t, "basic");
    const put = await t.call(
      `/api/admin/sites/${site.id}/pages`,
      admin(site.adminKey, { pages: PAGES }, "PUT"),
    );
    assert.equal(put.status, 200);
    await put.body?.cancel();
    for (const query of ["Which grindre?", "GRINDRE, which one gives an even grind"]) {
      const res = await t.call("/api/summarize", {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-API-Key": site.publicKey },
        body: JSON.stringify({ query }),
      });
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      assert.match(body.answer, /burr grinder/, query);
      assert.equal(body.sources[0]?.url?.split("#")[0], "/guide/grinding", query);
    }
  } finally {
    t.close();
  }
});
