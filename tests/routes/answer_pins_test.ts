/**
 * Answer pins (…/answers): the owner fixes a question's answer; a matching question gets it
 * as it stands, with `pinned: true`, citing the pinned pages, and spends no credit; bad lists
 * are refused whole with the field named.
 */
import assert from "node:assert/strict";
import { admin, createSite, putPages, startApp, type TestApp, type TestSite } from "../helpers.ts";
import { SHOP_HELP } from "../fixtures/shop_pages.ts";

const put = (t: TestApp, site: TestSite, body: unknown) =>
  t.call(`/api/admin/sites/${site.id}/answers`, { ...admin(site.adminKey, body), method: "PUT" });

const ask = (t: TestApp, site: TestSite, query: string) =>
  t.call("/api/summarize", {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-API-Key": site.publicKey },
    body: JSON.stringify({ query }),
  });

const creditsUsed = async (t: TestApp, site: TestSite): Promise<number> =>
  (await (await t.call(`/api/admin/sites/${site.id}/usage`, admin(site.adminKey))).json())
    .aiCredits.used;

Deno.test("answer pins - a pinned question is answered as the owner wrote it, citing its pages, for no credit", async () => {
  const t = await startApp();
  const site = await createSite(t, "basic");
  await putPages(t, site, SHOP_HELP);
  const answer = "No, we only ship within Europe. See our shipping page for the countries.";
  const res = await put(t, site, {
    answers: [
      { query: "Do you ship to Canada?", answer, sources: ["/shipping"] },
      { query: "gift wrap", match: "contains", answer: "We do not wrap gifts." },
    ],
  });
  assert.equal(res.status, 200);
  const saved = await res.json();
  assert.equal(saved.answers.length, 2);
  assert.match(saved.answers[0].id, /^ans_/);
  assert.equal(saved.answers[0].match, "exact");

  // The same question in another case and with other punctuation matches exactly.
  const body = await (await ask(t, site, "do you ship to canada")).json();
  assert.equal(body.answer, answer);
  assert.equal(body.pinned, true);
  assert.equal(body.answered, true);
  assert.deepEqual(body.sources, [{ type: "page", title: "Shipping", url: "/shipping" }]);
  const held = await (await ask(t, site, "can you gift wrap my order?")).json();
  assert.equal(held.answer, "We do not wrap gifts.");
  assert.deepEqual(held.sources, []);
  assert.equal(await creditsUsed(t, site), 0, "pinned answers spend no credit");

  // Other questions are answered from the pages, as before.
  const other = await (await ask(t, site, "How long does delivery to Germany take?")).json();
  assert.equal(other.pinned, undefined);
  assert.match(other.answer, /2 to 3 business days/);
  assert.equal(await creditsUsed(t, site), 1);
  assert.deepEqual(
    (await (await t.call(`/api/admin/sites/${site.id}/answers`, admin(site.adminKey))).json())
      .answers,
    saved.answers,
  );
  t.close();
});

Deno.test("answer pins - bad lists are refused whole, naming the field", async () => {
  const t = await startApp();
  const site = await createSite(t, "basic");
  await putPages(t, site, SHOP_HELP);
  const cases: [unknown, string][] = [
    [{ answers: [{ query: "returns", answer: "" }] }, "answers[0].answer"],
    [{ answers: [{ query: "returns", answer: "x".repeat(1601) }] }, "answers[0].answer"],
    [
      { answers: [{ query: "returns", answer: "Yes.", sources: ["/nowhere"] }] },
      "answers[0].sources[0]",
    ],
    [
      { answers: [{ query: "returns", answer: "Yes.", sources: ["https://x.test/"] }] },
      "answers[0].sources[0]",
    ],
    [{ answers: [{ query: "returns", answer: "Yes.", match: "fuzzy" }] }, "answers[0].match"],
    [
      { answers: [{ query: "Returns?", answer: "A." }, { query: "returns", answer: "B." }] },
      "answers[1].query",
    ],
    [
      { answers: Array.from({ length: 501 }, (_, i) => ({ query: `q${i}`, answer: "A." })) },
      "answers",
    ],
  ];
  for (const [body, param] of cases) {
    const res = await put(t, site, body);
    assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
    const err = (await res.json()).error;
    assert.equal(err.param, param, err.message);
  }
  const duplicate = await (await put(t, site, cases[5][0])).json();
  assert.match(duplicate.error.message, /same question as answers\[0\]: edit that one instead/);
  const kept = await (await t.call(`/api/admin/sites/${site.id}/answers`, admin(site.adminKey)))
    .json();
  assert.deepEqual(kept.answers, [], "nothing was stored");
  t.close();
});

Deno.test("answer pins - analytics count answers asked, answered from the site, not on the site and pinned", async () => {
  const t = await startApp();
  const site = await createSite(t, "basic");
  await putPages(t, site, SHOP_HELP);
  await put(t, site, { answers: [{ query: "gift wrap", answer: "We do not wrap gifts." }] });
  for (const q of ["How long does delivery to Germany take?", "xqzv blorptang?", "gift wrap"]) {
    const res = await ask(t, site, q);
    assert.equal(res.status, 200);
    await res.body?.cancel();
  }
  const report = await (await t.call(
    `/api/admin/sites/${site.id}/analytics?days=1`,
    admin(site.adminKey),
  )).json();
  assert.deepEqual(report.answers, {
    asked: 3,
    answered: 2,
    abstained: 1,
    sentencesRemoved: 0,
    pinned: 1,
    helpful: 0,
    unhelpful: 0,
  });
  t.close();
});

Deno.test("answers self-check - the site's own questions go through the answerer for no credit, and each run is kept", async () => {
  const t = await startApp();
  const site = await createSite(t, "basic");
  const faq = [
    ["Do you ship to Canada?", "No. We only ship within Europe, by DHL and PostNL."],
    ["How long does delivery to Germany take?", "Delivery to Germany takes 2 to 3 business days."],
    ["Can I return opened bags?", "Opened bags are covered by our taste guarantee for 30 days."],
  ];
  await putPages(t, site, [{
    url: "/faq",
    title: "FAQ",
    body: faq.map(([q, a]) => `${q}\n${a}`).join("\n"),
    headings: faq.map(([q]) => q),
  }, ...SHOP_HELP]);
  const path = `/api/admin/sites/${site.id}/answers/selfcheck`;
  const res = await t.call(path, { ...admin(site.adminKey, {}), method: "POST" });
  assert.equal(res.status, 200);
  const run = await res.json();
  assert.equal(run.questions, 3);
  assert.equal(run.abstained, 0);
  assert.ok(run.citedFirst >= 2 / 3, JSON.stringify(run));
  assert.ok(run.f1 > 0.5, JSON.stringify(run));
  assert.equal(run.worst.length, 3);
  for (const w of run.worst) assert.equal(w.expected, "/faq");
  assert.equal(await creditsUsed(t, site), 0, "the self-check spends no credit");
  const kept = await (await t.call(path, admin(site.adminKey))).json();
  assert.deepEqual(kept.runs, [run]);
  t.close();
});
