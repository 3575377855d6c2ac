/**
 * A click token is the first 128 bits, base64url, of HMAC-SHA-256 under the shared secret of the
 * JSON of [site, normalized query, result URL] (click_tokens.ts): checked here against
 * node:crypto for text of every kind, so tokens signed by any instance verify on any other.
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { ClickTokens } from "../../lib/analytics/click_tokens.ts";
import { normalizeQuery } from "../../lib/analytics/keys.ts";

Deno.test("click tokens - each is HMAC-SHA-256 of the site, query and URL under the shared secret, and verifies", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const tokens = new ClickTokens(kv);
    const cases: [string, string][] = [
      ["kettle descaling", "https://shop.example/kettles/descale"],
      ["Café crème – naïve", "https://shop.example/caf%C3%A9"], // UTF-8 of more than ASCII
      ["emoji 🫖 tea", "/tea/🫖"],
      ["long", "https://shop.example/" + "a".repeat(2_000)], // past the reused buffer
      ['quote " and \\ slash', "/q?a=1&b=2"],
    ];
    for (const [query, url] of cases) {
      const sign = await tokens.signer("site_kettle", query);
      const given = sign(url);
      const secret = (await kv.get<string>(["config", "clickSecret"])).value!;
      const message = JSON.stringify(["site_kettle", normalizeQuery(query), url]);
      const mac = createHmac("sha256", new TextEncoder().encode(secret)).update(message).digest();
      const expected = new Uint8Array(mac).subarray(0, 16).toBase64({
        alphabet: "base64url",
        omitPadding: true,
      });
      assert.equal(given, expected, query);
      assert.ok(await tokens.verify("site_kettle", query, url, given));
      assert.ok(!(await tokens.verify("site_other", query, url, given)), "another site's");
      assert.ok(!(await tokens.verify("site_kettle", query, url + "x", given)), "another URL's");
    }
  } finally {
    kv.close();
  }
});
