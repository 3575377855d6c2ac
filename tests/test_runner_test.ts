/** The suite's runner (scripts/test.ts): every file it runs alone exists and is a test file. */
import assert from "node:assert/strict";
import { TIMED } from "../scripts/test.ts";

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
