/**
 * The eval's Sphinx sets (bench/eval_derived.ts sphinxIndex): a genindex read as the shared sets
 * were made, nested sub-entries with the entry above them.
 */
import assert from "node:assert/strict";
import { sphinxIndex } from "../../bench/eval_derived.ts";

const GENINDEX = `<table class="indextable genindextable"><tr><td><ul>
      <li><a href="api.html#frob.Widget">Widget (class in frob)</a></li>
      <li><a href="api.html#frob.Widget.render">render() (frob.Widget method)</a>
      <ul>
        <li><a href="native.html#frob.native.Widget.render">(frob.native.Widget method)</a></li>
      </ul></li>
      <li>
    frob.sandbox

      <ul>
        <li><a href="sandbox.html#module-frob.sandbox">module</a></li>
      </ul></li>
      <li>
    autoescaping

      <ul>
        <li><a href="templates.html#autoescape-overrides">overrides</a></li>
      </ul></li>
      <li><a href="api.html#frob.Widget._private">_private (frob.Widget attribute)</a></li>
      <li><a href="templates.html#term-filters">filters, built-in</a></li>
</ul></td></tr></table>`;

Deno.test("sphinx index - API names, modules, sub-entries and terms become queries with their pages", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${root}/genindex.html`, GENINDEX);
    const { plain, faq } = await sphinxIndex(root);
    const got = Object.fromEntries(plain.map((j) => [j.query, [j.kind, ...j.relevant]]));
    assert.deepEqual(got, {
      "Widget": ["api", "/api.html"],
      "render": ["api", "/api.html", "/native.html"],
      "frob.sandbox": ["api", "/sandbox.html"],
      "autoescaping overrides": ["term+sub", "/templates.html"],
      "filters built-in": ["term", "/templates.html"],
    });
    assert.deepEqual(faq, []);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
