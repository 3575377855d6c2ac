import assert from "node:assert/strict";
import { slugName, urlEquivalence } from "../../lib/meaning/url_names.ts";

Deno.test("url names - a path's last segment names a page by its words, whatever the file ending or case", () => {
  assert.equal(slugName("/docs/cdn-setup"), "cdn setup");
  assert.equal(slugName("/docs/cdn_setup.html?lang=en#top"), "cdn setup");
  assert.equal(slugName("/guide/ContentDelivery/"), "content delivery");
  assert.equal(slugName("/guide/caf%C3%A9-menu.php"), "café menu");
  // "index" names its folder.
  assert.equal(slugName("/shipping/index.html"), "shipping");
});

Deno.test("url names - an id, a bare root or a long slug names nothing", () => {
  assert.equal(slugName("/posts/12345"), null);
  assert.equal(slugName("/p/7"), null);
  assert.equal(slugName("/"), null);
  assert.equal(slugName("/index.html"), null);
  assert.equal(slugName("/blog/how-we-moved-our-whole-store-to-a-new-host"), null);
});

Deno.test("url names - a redirect between two names is an equivalence with both URLs as evidence; the same name moved is none", () => {
  assert.deepEqual(
    urlEquivalence("/docs/cdn-setup", "/docs/content-delivery-network", "redirect"),
    {
      words: ["cdn setup", "content delivery network"],
      kind: "redirect",
      seen: 1,
      urls: ["/docs/cdn-setup", "/docs/content-delivery-network"],
    },
  );
  assert.equal(urlEquivalence("/v1/setup.html", "/v2/setup", "redirect"), null);
  assert.equal(urlEquivalence("/Setup-Guide", "/guide-setup", "canonical"), null);
  assert.equal(urlEquivalence("/old/123", "/new-page", "canonical"), null);
});
