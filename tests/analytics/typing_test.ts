/** Typing sessions' pending queries: replaced, finished by quiet, a click or Enter, and bounded. */
import assert from "node:assert/strict";
import { QUIET_MS, TypingSessions } from "../../lib/analytics/typing.ts";

const queries = (ps: readonly { q: string }[]) => ps.map((p) => p.q);

Deno.test("typing - a session's next request replaces its pending query; quiet sessions come out in order", () => {
  const t = new TypingSessions();
  t.ask("s1", "a", "How do", 3, 0);
  t.ask("s1", "b", "Kettle", 2, 100);
  t.ask("s1", "a", "How  do I STORE", 1, 200);
  t.ask("s2", "a", "other site", 0, 300);
  assert.deepEqual(
    t.quiet(QUIET_MS + 99),
    [],
    "b was asked at 100: quiet from 100 + QUIET_MS",
  );
  assert.deepEqual(queries(t.quiet(QUIET_MS + 150)), ["kettle"]);
  const rest = t.quiet(QUIET_MS + 300);
  assert.deepEqual(rest.map((p) => [p.siteId, p.q, p.found, p.at]), [
    ["s1", "how do i store", 1, 200],
    ["s2", "other site", 0, 300],
  ]);
  assert.equal(t.size, 0);
});

Deno.test("typing - a click finishes exactly its query's sessions; Enter drops the prefixes it completes", () => {
  const t = new TypingSessions();
  t.ask("s1", "a", "cold br", 1, 0);
  t.ask("s1", "b", "cold brew", 1, 0);
  t.ask("s1", "c", "cold brew", 1, 0);
  t.ask("s2", "d", "cold brew", 1, 0);
  assert.deepEqual(queries(t.clicked("s1", " Cold  Brew ")), ["cold brew", "cold brew"]);
  t.ask("s1", "e", "kettle desc", 1, 0);
  t.ask("s1", "f", "kettles", 1, 0);
  t.acted("s1", "Kettle descaling");
  assert.deepEqual(queries(t.quiet(Infinity)), ["cold br", "kettles", "cold brew"]);
});

Deno.test("typing - a site keeps at most 2,000 pending sessions; the oldest is pushed out to be counted", () => {
  const t = new TypingSessions();
  for (let i = 0; i < 2_000; i++) assert.equal(t.ask("s1", `x${i}`, `q${i}`, 1, i), null);
  const out = t.ask("s1", "new", "newest", 1, 5_000);
  assert.equal(out?.q, "q0");
  assert.equal(t.quiet(Infinity).length, 2_000);
});
