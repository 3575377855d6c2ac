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
