import assert from "node:assert/strict";
import { topK } from "../../lib/search/engine/query/top_k.ts";
import { seeded } from "../fixtures/seeded.ts";

Deno.test("rank - top-k selection returns exactly what the full sort did, ties included", () => {
  const rand = seeded(5);
  for (let round = 0; round < 300; round++) {
    const n = 1 + Math.floor(rand() * 400);
    const score = new Float64Array(n), words = new Uint16Array(n);
    // Few distinct values, so many documents tie on both keys.
    const levels = 1 + Math.floor(rand() * 6);
    for (let i = 0; i < n; i++) {
      score[i] = Math.floor(rand() * levels) / 2;
      words[i] = 1 + Math.floor(rand() * 3);
    }
    // Ids in the order ranking met them, not sorted.
    const ids = Array.from({ length: n }, (_, i) => i).sort(() => rand() - 0.5);
    const full = [...ids].sort((a, b) => words[b] - words[a] || score[b] - score[a]);
    for (const k of [1, 3, 10, 20, Math.ceil(n / 4), n]) {
      const kk = Math.min(k, n);
      assert.deepEqual(topK([...ids], kk, { score, words }), full.slice(0, kk), `n ${n}, k ${kk}`);
    }
  }
});
