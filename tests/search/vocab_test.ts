import assert from "node:assert/strict";
import { Vocab } from "../../lib/search/vocab.ts";

Deno.test("vocab - random sets and deletes read back as a Map does, through growth and reused slots", () => {
  const vocab = new Vocab(8);
  const ref = new Map<string, number>();
  let x = 1;
  const rand = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let step = 0; step < 20_000; step++) {
    const word = `w${Math.floor(rand() * 3000).toString(36)}`;
    if (rand() < 0.6) {
      const n = 1 + Math.floor(rand() * 9);
      vocab.set(word, n);
      ref.set(word, n);
    } else {
      vocab.delete(word);
      ref.delete(word);
    }
    const probe = `w${Math.floor(rand() * 3000).toString(36)}`;
    assert.equal(vocab.get(probe), ref.get(probe));
    assert.equal(vocab.has(probe), ref.has(probe));
  }
  assert.equal(vocab.size, ref.size);
  assert.deepEqual(new Map(vocab.entries()), ref);
  assert.ok(vocab.capacity >= ref.size * 10 / 7 && vocab.capacity <= 8192, `${vocab.capacity}`);
});
