/**
 * Feedback crosses a seam: POST /api/feedback stores a vote, the analytics report and the
 * dashboard read it. These tests post votes through the API and read them where the owner does.
 */
import assert from "node:assert/strict";
import { feedbackSummary } from "../../lib/analytics/feedback.ts";
import {
  admin,
  createSite,
  manualClock,
  putPages,
  startApp,
  type TestApp,
  type TestSite,
} from "../helpers.ts";

const DAY = 86_400_000;
const PAGES = [{
  url: "/shipping",
  title: "Shipping",
  body: "We ship to Germany with DHL. Delivery to Germany takes 2 to 3 business days.",
}];

const post = (t: TestApp, key: string, path: string, body: unknown) =>
  t.call(path, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-API-Key": key },
    body: JSON.stringify(body),
  });

/** Asks a question and returns its conversation's id. */
async function ask(t: TestApp, site: TestSite): Promise<string> {
  const res = await post(t, site.publicKey, "/api/summarize", {
    query: "How long does delivery to Germany take?",
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.conversationId;
}

async function vote(t: TestApp, site: TestSite, body: Record<string, unknown>) {
  const res = await post(t, site.publicKey, "/api/feedback", { turn: 1, ...body });
  assert.equal(res.status, 204);
  await res.body?.cancel();
}

async function report(t: TestApp, site: TestSite, days: number) {
  const res = await t.call(
    `/api/admin/sites/${site.id}/analytics?days=${days}`,
    admin(site.adminKey),
  );
  assert.equal(res.status, 200);
  return await res.json();
}

Deno.test("feedback - votes posted to /api/feedback show in the analytics report, within its period, newest comment first", async () => {
  const clock = manualClock();
  const t = await startApp({ clock });
  try {
    const site = await createSite(t, "basic");
    await putPages(t, site, PAGES);
    const old = await ask(t, site);
    await vote(t, site, { conversationId: old, helpful: false, comment: "Three weeks ago" });
    clock.advance(20 * DAY);
    const [a, b, c] = [await ask(t, site), await ask(t, site), await ask(t, site)];
    await vote(t, site, { conversationId: a, helpful: true, comment: "Clear, thanks" });
    clock.advance(60_000);
    await vote(t, site, { conversationId: b, helpful: false, comment: "Nothing about Austria" });
    await vote(t, site, { conversationId: c, helpful: true });
    clock.advance(60_000);
    // A second vote on a turn replaces the first: b's turn is now helpful, its comment new.
    await vote(t, site, { conversationId: b, helpful: true, comment: "Now I see it" });

    const week = await report(t, site, 7);
    assert.equal(week.feedback.helpful, 3);
    assert.equal(week.feedback.unhelpful, 0);
    assert.deepEqual(
      week.feedback.recent.map((
        r: { comment: string; helpful: boolean },
      ) => [r.comment, r.helpful]),
      [["Now I see it", true], ["Clear, thanks", true]],
    );
    assert.equal(week.feedback.recent[0].conversationId, b);
    assert.equal(week.feedback.recent[0].turn, 1);
    assert.equal(week.feedback.recent[0].at, new Date(clock()).toISOString());
    const month = await report(t, site, 30);
    assert.deepEqual([month.feedback.helpful, month.feedback.unhelpful], [3, 1]);
    assert.equal(month.feedback.recent.at(-1).comment, "Three weeks ago");
    assert.deepEqual(await feedbackSummary(t.kv, site.id, clock() - 7 * DAY), week.feedback);
  } finally {
    t.close();
  }
});

Deno.test("feedback - the dashboard shows the votes posted, in its analytics panel's props", async () => {
  const t = await startApp();
  try {
    const site = await createSite(t, "basic", "Zephyr Kettles");
    const other = await createSite(t, "basic", "Other");
    await putPages(t, site, PAGES);
    await putPages(t, other, PAGES);
    await vote(t, site, { conversationId: await ask(t, site), helpful: true });
    await vote(t, site, {
      conversationId: await ask(t, site),
      helpful: false,
      comment: "Zu kurz – sagt nichts über Österreich",
    });
    await vote(t, other, { conversationId: await ask(t, other), helpful: true });

    const signIn = await t.call("/dashboard/session", {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        Origin: "http://127.0.0.1",
      },
      body: new URLSearchParams({ key: site.adminKey }),
      redirect: "manual",
    });
    await signIn.body?.cancel();
    const cookie = signIn.headers.get("set-cookie")!.split(";")[0];
    const page = await (await t.call("/dashboard", { headers: { Cookie: cookie } })).text();
    // The island's props are JSON in an inert script tag right after its markup.
    const props =
      /data-island="AnalyticsPanel"[\s\S]*?<script type="application\/json"[^>]*>([\s\S]*?)<\/script>/
        .exec(page);
    assert.ok(props, "the analytics panel and its props are on the page");
    const json = props[1].replace(/\\u003c/g, "<").replace(/\\u003e/g, ">").replace(
      /\\u0026/g,
      "&",
    );
    const { report } = JSON.parse(json);
    assert.equal(report.feedback.helpful, 1, "the other site's vote is not counted here");
    assert.equal(report.feedback.unhelpful, 1);
    assert.equal(report.feedback.recent[0].comment, "Zu kurz – sagt nichts über Österreich");
    assert.match(page, /1 helpful/);
    assert.match(page, /Zu kurz – sagt nichts über Österreich/);
  } finally {
    t.close();
  }
});
