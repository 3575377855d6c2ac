/**
 * An honest "not on this site": a question about a thing the site never names gets one
 * sentence in the site's language, answered: false, no sources and no credit, while one about
 * a thing it names is answered.
 */
import assert from "node:assert/strict";
import { admin, createSite, putPages, startApp, type TestApp, type TestSite } from "../helpers.ts";

const PAGES = [
  {
    url: "/extensions",
    title: "Writing extensions",
    body: "Frob supports extensions written in Python. An extension adds tags and filters. " +
      "Frob also supports WebSocket streaming of rendered templates.",
  },
  {
    url: "/filters",
    title: "Custom filters",
    body: "Register a custom filter with frob.filters. A filter is a function of one value.",
  },
];

const ask = (t: TestApp, site: TestSite, query: string) =>
  t.call("/api/summarize", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-API-Key": site.publicKey },
    body: JSON.stringify({ query }),
  }).then((r) => r.json());

Deno.test("not on this site - a thing the site never names is not answered from pages about something else", async () => {
  const t = await startApp();
  const site = await createSite(t, "basic");
  await putPages(t, site, PAGES);
  const none = await ask(t, site, "Does Frob support GraphQL?");
  assert.equal(none.answered, false);
  assert.equal(none.answer, "No answer found on this site.");
  assert.deepEqual(none.sources, []);
  const known = await ask(t, site, "Does Frob support WebSocket?");
  assert.equal(known.answered, true);
  assert.match(known.answer, /WebSocket/);
  const used = (await (await t.call(`/api/admin/sites/${site.id}/usage`, admin(site.adminKey)))
    .json()).aiCredits.used;
  assert.equal(used, 1, "only the answered question cost a credit");
  // In the site's language.
  await t.call(`/api/admin/sites/${site.id}`, {
    ...admin(site.adminKey, { lang: "de" }),
    method: "PATCH",
  });
  const de = await ask(t, site, "Does Frob support GraphQL?");
  assert.equal(de.answered, false);
  assert.equal(de.answer, "Auf dieser Website wurde keine Antwort gefunden.");
  t.close();
});
