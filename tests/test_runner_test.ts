/** The suite's runner (scripts/test.ts): the files it names exist, and each test file runs once. */
import assert from "node:assert/strict";
import { FIRST, parallelOrder, testFiles, TIMED } from "../scripts/test.ts";

/** Each path of a runner's list names a test file of the suite, once. */
async function allTestFiles(list: string[]) {
  const root = new URL("../", import.meta.url);
  assert.ok(list.length > 0);
  assert.equal(new Set(list).size, list.length, "listed once");
  for (const path of list) {
    assert.match(path, /^tests\/.+_test\.ts$/);
    assert.ok((await Deno.stat(new URL(path, root))).isFile, path);
  }
}

Deno.test("test runner - each file run alone after the parallel run is a test file of the suite", async () => {
  await allTestFiles(TIMED);
});

Deno.test("test runner - the files started first are test files of the parallel run", async () => {
  await allTestFiles(FIRST);
  for (const path of FIRST) {
    assert.ok(!TIMED.includes(path), `${path} runs alone, after the parallel run`);
  }
});

Deno.test("test runner - the two runs hold every test file once between them, the longest first", async () => {
  const root = new URL("../", import.meta.url).pathname;
  const cwd = Deno.cwd();
  Deno.chdir(root);
  try {
    const all = await testFiles();
    assert.ok(all.includes("tests/test_runner_test.ts"));
    assert.ok(!all.some((f) => f.endsWith("helpers.ts")), "only test files");
    const parallel = parallelOrder(all);
    assert.deepEqual(parallel.slice(0, FIRST.length), FIRST);
    assert.equal(new Set(parallel).size, parallel.length, "each once");
    assert.deepEqual([...parallel, ...TIMED].sort(), all);
  } finally {
    Deno.chdir(cwd);
  }
});
