/** The suite's runner (scripts/test.ts): what it runs alone and in parallel, each test file once. */
import assert from "node:assert/strict";
import { parallelOrder, TEST_FILE, TIMED } from "../scripts/test.ts";

Deno.test("test runner - each file run alone after the parallel run is a test file of the suite", async () => {
  const root = new URL("../", import.meta.url);
  assert.ok(TIMED.length > 0);
  assert.equal(new Set(TIMED).size, TIMED.length, "listed once");
  for (const path of TIMED) {
    assert.match(path, /^tests\/.+_test\.ts$/);
    const info = await Deno.stat(new URL(path, root));
    assert.ok(info.isFile, path);
  }
});

Deno.test("test runner - the parallel run holds every other test file once, those that drive Chromium first", async () => {
  const root = new URL("../", import.meta.url).pathname;
  const order = await parallelOrder(root);
  assert.equal(new Set(order).size, order.length, "listed once");
  for (const path of TIMED) assert.ok(!order.includes(path), `${path} runs alone, not in parallel`);
  // Every file `deno test tests/` would find, by its own walk.
  const found: string[] = [];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(root + dir)) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory) await walk(path);
      else if (TEST_FILE.test(e.name)) found.push(path);
    }
  };
  await walk("tests");
  assert.ok(found.length > 100);
  assert.deepEqual([...order, ...TIMED].sort(), found.sort(), "every test file runs once");
  const launches = /chromium\.launch\(\{ executablePath/;
  const drives = await Promise.all(
    order.map(async (p) => launches.test(await Deno.readTextFile(root + p))),
  );
  const firstOther = drives.indexOf(false);
  assert.ok(firstOther > 0, "browser files come first");
  assert.ok(!drives.slice(firstOther).includes(true), "no browser file after the others");
});
