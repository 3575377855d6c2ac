import assert from "node:assert/strict";
import { feedbackSummary } from "../../lib/analytics/feedback.ts";
import { createSite, putPages, startApp, type TestApp, type TestSite } from "../helpers.ts";

const PAGES = [{
  url: "/shipping",
  title: "Shipping",
  body: "We ship to Germany with DHL. Delivery to Germany takes 2 to 3 business days.",
}];

function post(t: TestApp, key: string, path: string, body: unknown) {
  return t.call(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-API-Key": key },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function answered(t: TestApp, site: TestSite): Promise<string> {
  const res = await post(t, site.publicKey, "/api/summarize", {
    query: "How long does delivery to Germany take?",
  });
  const body = await res.json();
  assert.equal(res.status, 200);
  return body.conversationId;
}

Deno.test("feedback - a vote on an answer is stored for its site, and a second vote replaces it", async () => {
  const t = await startApp();
  const site = await createSite(t, "basic");
  await putPages(t, site, PAGES);
  const conversationId = await answered(t, site);
  const up = await post(t, site.publicKey, "/api/feedback", {
    conversationId,
    turn: 1,
    helpful: true,
  });
  assert.equal(up.status, 204);
  assert.equal(await up.text(), "");
  let summary = await feedbackSummary(t.kv, site.id, 0);
  assert.equal(summary.helpful, 1);
  assert.equal(summary.unhelpful, 0);
  assert.deepEqual(summary.recent, []);

  const comment = "Zu kurz – sagt nichts über Österreich 🇦🇹";
  const down = await post(t, site.publicKey, "/api/feedback", {
    conversationId,
    turn: 1,
    helpful: false,
    comment,
  });
  assert.equal(down.status, 204);
  await down.body?.cancel();
  summary = await feedbackSummary(t.kv, site.id, 0);
  assert.equal(summary.helpful, 0, "the first vote was replaced");
  assert.equal(summary.unhelpful, 1);
  assert.equal(summary.recent.length, 1);
  assert.equal(summary.recent[0].comment, comment);
  assert.equal(summary.recent[0].conversationId, conversationId);
  assert.equal(summary.recent[0].helpful, false);
  assert.equal(
    summary.recent[0].question,
    "How long does delivery to Germany take?",
    "the comment comes with the question it was about",
  );
  t.close();
});

Deno.test("feedback - another site's conversation, or a turn not yet asked, is 404", async () => {
  const t = await startApp();
  const a = await createSite(t, "basic");
  const b = await createSite(t, "basic");
  await putPages(t, a, PAGES);
  const conversationId = await answered(t, a);
  const other = await post(t, b.publicKey, "/api/feedback", {
    conversationId,
    turn: 1,
    helpful: true,
  });
  assert.equal(other.status, 404);
  assert.equal((await other.json()).error.code, "CONVERSATION_NOT_FOUND");
  const later = await post(t, a.publicKey, "/api/feedback", {
    conversationId,
    turn: 2,
    helpful: true,
  });
  assert.equal(later.status, 404);
  assert.equal((await later.json()).error.param, "turn");
  assert.equal((await feedbackSummary(t.kv, b.id, 0)).helpful, 0);
  assert.equal((await feedbackSummary(t.kv, a.id, 0)).helpful, 0);
  t.close();
});

Deno.test("feedback - bad input gets the error envelope and stores nothing", async () => {
  const t = await startApp();
  const site = await createSite(t, "basic");
  await putPages(t, site, PAGES);
  const conversationId = await answered(t, site);
  const cases: [unknown, number, string, string | null][] = [
    ["{not json", 400, "INVALID_JSON", null],
    [{ turn: 1, helpful: true }, 400, "INVALID_PARAMETER", "conversationId"],
    [{ conversationId, helpful: true }, 400, "INVALID_PARAMETER", "turn"],
    [{ conversationId, turn: 0, helpful: true }, 400, "INVALID_PARAMETER", "turn"],
    [{ conversationId, turn: 1.5, helpful: true }, 400, "INVALID_PARAMETER", "turn"],
    [{ conversationId, turn: 1 }, 400, "INVALID_PARAMETER", "helpful"],
    [{ conversationId, turn: 1, helpful: "yes" }, 400, "INVALID_PARAMETER", "helpful"],
    [{ conversationId, turn: 1, helpful: true, comment: 5 }, 400, "INVALID_PARAMETER", "comment"],
    [
      { conversationId, turn: 1, helpful: false, comment: "ü".repeat(501) },
      400,
      "INVALID_PARAMETER",
      "comment",
    ],
    [{ conversationId: "cv_nope", turn: 1, helpful: true }, 404, "CONVERSATION_NOT_FOUND", null],
  ];
  for (const [body, status, code, param] of cases) {
    const res = await post(t, site.publicKey, "/api/feedback", body);
    const got = await res.json();
    assert.equal(res.status, status, JSON.stringify(body).slice(0, 80));
    assert.equal(got.error.code, code);
    assert.match(got.error.request_id, /^req_/);
    if (param) assert.equal(got.error.param, param);
  }
  const noKey = await t.call("/api/feedback", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ conversationId, turn: 1, helpful: true }),
  });
  assert.equal(noKey.status, 401);
  await noKey.body?.cancel();
  const get = await t.call("/api/feedback");
  assert.equal(get.status, 405);
  await get.body?.cancel();
  const ok = await post(t, site.publicKey, "/api/feedback", {
    conversationId,
    turn: 1,
    helpful: false,
    comment: "ü".repeat(500),
  });
  assert.equal(ok.status, 204, "500 characters are allowed");
  await ok.body?.cancel();
  const summary = await feedbackSummary(t.kv, site.id, 0);
  assert.deepEqual([summary.helpful, summary.unhelpful, summary.recent.length], [0, 1, 1]);
  t.close();
});
