import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { hmacSha256 } from "../../lib/analytics/hmac.ts";

Deno.test("hmac - every digest equals node:crypto's, for keys and messages of every length that matters", () => {
  // Lengths around the block (64) and the padding boundary (55, 56), and longer keys (hashed).
  for (const keyLength of [0, 1, 32, 63, 64, 65, 200]) {
    const key = crypto.getRandomValues(new Uint8Array(keyLength));
    const mac = hmacSha256(key);
    for (const length of [0, 1, 31, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1000, 5000]) {
      const message = crypto.getRandomValues(new Uint8Array(length));
      const ours = Array.from(mac(message), (b) => b.toString(16).padStart(2, "0")).join("");
      const theirs = createHmac("sha256", key).update(message).digest("hex");
      assert.equal(ours, theirs, `key ${keyLength} bytes, message ${length} bytes`);
    }
  }
  // RFC 4231, test case 2.
  const mac = hmacSha256(new TextEncoder().encode("Jefe"));
  const digest = mac(new TextEncoder().encode("what do ya want for nothing?"));
  assert.equal(
    Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join(""),
    "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
  );
});

Deno.test("hmac - into writes the MAC of a message's first bytes, and two keys' MACs interleaved never mix", () => {
  const a = hmacSha256(new TextEncoder().encode("first key")), b = hmacSha256(new Uint8Array(100));
  const out = new Uint8Array(32);
  for (const length of [0, 20, 55, 56, 300]) {
    const buffer = crypto.getRandomValues(new Uint8Array(length + 17)); // bytes past `length` too
    a.into(buffer, length, out);
    const fromB = b(buffer.subarray(0, length)); // between a's MAC and its check
    assert.deepEqual(out, a(buffer.slice(0, length)), `a, ${length} bytes`);
    const theirs = createHmac("sha256", new Uint8Array(100)).update(buffer.subarray(0, length));
    assert.deepEqual(fromB, new Uint8Array(theirs.digest()), `b, ${length} bytes`);
  }
});
