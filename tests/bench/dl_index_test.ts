/**
 * The eval's DocBook-made manual sets (bench/eval_derived.ts nestedDlIndex): a back-of-book
 * index of nested definition lists, a sub-entry read with the entry above it.
 */
import assert from "node:assert/strict";
import { nestedDlIndex } from "../../bench/eval_derived.ts";

const INDEX = `<h2>Concept Index</h2><div class="sectionindex"><dl>
<dt>frob_limit</dt>
<dd><p><a href="ch-main.html#SECTopts" title="Main">Main<small> [Options]</small></a></p></dd>
<dt>retry</dt>
<dd><dl>
<dt>final cutoff</dt>
<dd><p><a href="ch-retry.html#SECID1">Retry</a></p><p><a href="ch-queue.html">Queue</a></p></dd>
<dt>rules; sender-specific</dt>
<dd><p><a href="ch-retry.html#SECID2">Retry</a></p></dd>
</dl></dd>
<dt>x</dt>
<dd><p><a href="ch-x.html">X</a></p></dd>
<dt>widget (router)</dt>
<dd><p><a href="ch-widget.html">Widget</a></p></dd>
</dl></div>`;

Deno.test("dl index - entries and sub-entries become queries with the pages they link", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${root}/index1.html`, INDEX);
    const { plain, faq } = await nestedDlIndex(root, ["index1.html"]);
    const got = Object.fromEntries(plain.map((j) => [j.query, [j.kind, ...j.relevant]]));
    assert.deepEqual(got, {
      "frob_limit": ["term", "/ch-main.html"],
      "retry final cutoff": ["term+sub", "/ch-retry.html", "/ch-queue.html"],
      "retry rules sender-specific": ["term+sub", "/ch-retry.html"],
      "widget router": ["term", "/ch-widget.html"],
    });
    assert.deepEqual(faq, []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
