/** Every built browser file: within 12 KB gzipped, the results page without the dashboard's code. */
import assert from "node:assert/strict";
import { gzipSize, ISLANDS_DIR, staleBundles } from "../../scripts/build.ts";
import { staticFiles } from "../../widget/i18n/all.ts";

const ROOT = new URL("../../", import.meta.url);
const read = (path: string) => Deno.readTextFile(new URL(path, ROOT));

/** The built files: the scripts, the SSE module, the islands' modules and the strings tables. */
async function builtFiles(): Promise<string[]> {
  const out = ["static/widget.js", "static/results.js", "static/sse.js", "static/answer.js"];
  for await (const e of Deno.readDir(new URL(ISLANDS_DIR + "/", ROOT))) {
    out.push(`${ISLANDS_DIR}/${e.name}`);
  }
  return [...out, ...staticFiles().map(([path]) => `static/${path}`)];
}

Deno.test("bundles - every built file is fresh and at most 12 KB gzipped", async () => {
  assert.deepEqual((await staleBundles()).map((b) => b.out), [], "run deno task build");
  for (const path of await builtFiles()) {
    const size = await gzipSize(new TextEncoder().encode(await read(path)));
    assert.ok(size <= 12 * 1024, `${path} is ${size} bytes gzipped`);
  }
});

Deno.test("bundles - the results page's modules carry none of the dashboard's panels", async () => {
  const results = await read(`${ISLANDS_DIR}/boot_results.js`);
  const shared = [...results.matchAll(/from"\.\/(chunk-[\w-]+\.js)"/g)].map((m) => m[1]);
  assert.ok(shared.length >= 1, "the results page imports the shared chunk");
  const shipped = results + (await Promise.all(shared.map((c) => read(`${ISLANDS_DIR}/${c}`))))
    .join("");
  const dashboard = await read(`${ISLANDS_DIR}/boot_dashboard.js`) +
    await read(`${ISLANDS_DIR}/boot_analytics.js`) + await read(`${ISLANDS_DIR}/boot_operator.js`);
  // Words only the dashboard's panels say: in its bundles, never in the results page's.
  for (const word of ["Save limits", "Rotate"]) {
    assert.ok(dashboard.includes(word), `the dashboard says ${word}`);
    assert.ok(!shipped.includes(word), `the results page ships ${word}`);
  }
});

Deno.test("bundles - each language's strings file is its table, the SSE parser a module", async () => {
  for (const [path, json] of staticFiles()) {
    assert.deepEqual(JSON.parse(await read(`static/${path}`)), JSON.parse(json), path);
  }
  const sse = await read("static/sse.js");
  assert.match(sse, /export\s*\{[^}]*sseEvents/);
});
