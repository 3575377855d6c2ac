/**
 * Typing sessions are bounded per site: a flood of one site's sessions pushes out only that
 * site's own oldest pending queries, never another site's (which would count them half-typed).
 */
import assert from "node:assert/strict";
import { TypingSessions } from "../../lib/analytics/typing.ts";

Deno.test("typing flood - 5,000 sessions on one site leave another site's pending query pending", () => {
  const sessions = new TypingSessions();
  const t0 = Date.UTC(2026, 11, 1, 12);
  sessions.ask({ siteId: "site_b", session: "sess_real", q: "descaling a kett", found: 3, at: t0 });
  const pushed = [];
  for (let i = 0; i < 5000; i++) {
    const out = sessions.ask({
      siteId: "site_a",
      session: `sess_flood_${i}`,
      q: `spam ${i}`,
      found: 0,
      at: t0 + i,
    });
    if (out) pushed.push(out);
  }
  assert.ok(pushed.length > 0, "the flood is bounded");
  assert.deepEqual([...new Set(pushed.map((p) => p.siteId))], ["site_a"], "only its own go");
  const still = sessions.clicked("site_b", "descaling a kett");
  assert.equal(still.length, 1, "the other site's query is still pending, not counted early");
  assert.equal(still[0].session, "sess_real");
});
