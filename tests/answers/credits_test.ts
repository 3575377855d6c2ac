/**
 * What an answer costs while its credit is taken beside retrieval (lib/answers/ask.ts): one
 * credit per answer delivered, none for a question nothing matches or an answer that fails.
 */
import assert from "node:assert/strict";
import { admin, createSite, putPages, startApp, type TestApp, type TestSite } from "../helpers.ts";
import { SHOP_HELP } from "../fixtures/shop_pages.ts";

async function creditsUsed(t: TestApp, site: TestSite): Promise<number> {
  const res = await t.call(`/api/admin/sites/${site.id}/usage`, admin(site.adminKey));
  return (await res.json()).aiCredits.used;
}

function ask(t: TestApp, site: TestSite, query: string) {
  return t.call("/api/summarize", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-API-Key": site.publicKey },
    body: JSON.stringify({ query }),
  });
}

Deno.test("answers - questions asked at once, some answered and some matching nothing, spend one credit per answer", async () => {
  const t = await startApp();
  const site = await createSite(t, "basic");
  await putPages(t, site, SHOP_HELP);
  const answered = ["How long does delivery to Germany take?", "Can opened bags be returned?"];
  const unmatched = ["xqzv blorptang wuzzle?", "How do I reset my router firmware?"];
  const bodies = await Promise.all(
    [...answered, ...unmatched, ...answered.map((q) => `${q} Please`)].map(async (q) => {
      const res = await ask(t, site, q);
      assert.equal(res.status, 200);
      return await res.json();
    }),
  );
  const unanswered = bodies.filter((b) => b.sources.length === 0);
  assert.equal(unanswered.length, 2, "the two questions nothing matches");
  for (const b of unanswered) {
    assert.equal(b.answer, "No answer found on this site.");
    assert.equal(b.answered, false);
  }
  assert.equal(await creditsUsed(t, site), 4, "one credit for each of the four answers");
  t.close();
});

Deno.test("answers - an answer whose retrieval fails costs no credit, and the next question is answered", async () => {
  const t = await startApp();
  const site = await createSite(t, "basic");
  await putPages(t, site, SHOP_HELP);
  const top = t.services.indexes.top;
  // The index fails while the answer is retrieved (as a broken store would).
  t.services.indexes.top = async () => {
    await new Promise((r) => setTimeout(r, 20));
    throw new Error("index unavailable");
  };
  const res = await ask(t, site, "How long does delivery to Germany take?");
  assert.ok(res.status >= 500, `status ${res.status}`);
  await res.body?.cancel();
  assert.equal(await creditsUsed(t, site), 0);
  t.services.indexes.top = top;
  const ok = await ask(t, site, "How long does delivery to Germany take?");
  assert.equal(ok.status, 200);
  assert.match((await ok.json()).answer, /2 to 3 business days/);
  assert.equal(await creditsUsed(t, site), 1);
  t.close();
});
