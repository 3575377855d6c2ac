/**
 * The eval's guard (bench/eval_guard.ts): a run that lowers a set by more than 0.01 fails
 * unless a general reason accepts it; the baseline keeps every set, the run's replaced.
 */
import assert from "node:assert/strict";
import { drops, readBaseline, updated, verdict } from "../../bench/eval_guard.ts";

const baseline = {
  docs: { mrr: 0.9, mrrTypo: 0.88, p1: 0.85, f1: 0.95, cite1: 1 },
  manual: { mrr: 0.8, mrrTypo: 0.74, p1: 0.7 },
};

Deno.test("eval guard - a fall of more than 0.01 on any figure of any set fails the run", () => {
  const now = { docs: { mrr: 0.889, mrrTypo: 0.88, p1: 0.86, f1: 0.95, cite1: 1 } };
  assert.deepEqual(drops(baseline, now), [{ set: "docs", figure: "mrr", from: 0.9, to: 0.889 }]);
  const { ok, lines } = verdict(drops(baseline, now), undefined);
  assert.equal(ok, false);
  assert.match(lines.join("\n"), /docs mrr fell 0\.900 → 0\.889[\s\S]*--accept/);
});

Deno.test("eval guard - 0.01 exactly, a rise, and a set the baseline lacks all pass", () => {
  const now = {
    docs: { mrr: 0.89, mrrTypo: 0.9, p1: 0.8404, f1: 0.96, cite1: 1 },
    manual: { mrr: 0.7904999 + 0.1, mrrTypo: 0.74, p1: 0.7 },
    fresh: { mrr: 0.1 },
  };
  assert.deepEqual(drops(baseline, now), []);
  assert.equal(verdict([], undefined).ok, true);
});

Deno.test("eval guard - a stated reason accepts a fall, and is printed with it", () => {
  const found = drops(baseline, { manual: { mrr: 0.75 } });
  assert.equal(found.length, 1);
  const { ok, lines } = verdict(found, "a general rule: titles count before headings");
  assert.equal(ok, true);
  assert.ok(lines.some((l) => l.includes("accepted: a general rule")));
  assert.equal(verdict(found, "  ").ok, false, "an empty reason is no reason");
});

Deno.test("eval guard - an update replaces the sets run, keeps the others, rounded", () => {
  const next = updated(baseline, { docs: { mrr: 0.91234, p1: 0.86 } });
  assert.deepEqual(next, { docs: { mrr: 0.912, p1: 0.86 }, manual: baseline.manual });
});

Deno.test("eval guard - the committed baseline holds every set with its relevance figures", async () => {
  const kept = await readBaseline();
  const sets = Object.keys(kept);
  assert.ok(sets.length >= 7, `sets: ${sets.join(", ")}`);
  for (const [set, f] of Object.entries(kept)) {
    for (const k of ["mrr", "mrrTypo", "p1"] as const) {
      assert.ok(typeof f[k] === "number" && f[k]! > 0 && f[k]! <= 1, `${set} ${k}`);
    }
  }
});
