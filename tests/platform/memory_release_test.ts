import assert from "node:assert/strict";
import {
  mallocTrim,
  releaseMemorySoon,
  trimAfterChurn,
} from "../../lib/platform/memory_release.ts";

Deno.test("malloc_trim is callable on Linux with glibc when FFI is granted (as deno task start:tuned grants it)", () => {
  const trim = mallocTrim();
  if (Deno.build.os !== "linux") return assert.equal(trim, null);
  assert.ok(trim, "glibc's malloc_trim should open here");
  trim(); // returns memory to the system; never throws
  assert.equal(mallocTrim(), trim, "opened once");
});

Deno.test("without FFI permission there is nothing to trim with, and no prompt", async () => {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/probe.ts`;
  const module = new URL("../../lib/platform/memory_release.ts", import.meta.url).href;
  await Deno.writeTextFile(
    file,
    `import { mallocTrim } from "${module}";\nconsole.log(String(mallocTrim()));\n`,
  );
  const out = await new Deno.Command(Deno.execPath(), {
    // The probe lives outside the project: name its import map, or the engine's bare imports fail.
    args: [
      "run",
      "--no-prompt",
      "--config",
      new URL("../../deno.json", import.meta.url).pathname,
      "--allow-read",
      file,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  await Deno.remove(dir, { recursive: true });
  const said = new TextDecoder().decode(out.stderr);
  assert.equal(new TextDecoder().decode(out.stdout).trim(), "null", said);
});

Deno.test("trims twice once indexes stop churning, never while they churn", async () => {
  let churn = 0, trims = 0;
  const stop = trimAfterChurn(() => churn, 20, () => trims++);
  const tick = () => new Promise((r) => setTimeout(r, 20));
  try {
    for (let i = 0; i < 4; i++) await tick();
    assert.equal(trims, 0, "no churn, no trim");
    for (let i = 0; i < 12; i++) churn++, await tick();
    assert.equal(trims, 0, "busy: no trim");
    for (let i = 0; i < 12; i++) await tick();
    assert.equal(trims, 2, "the two quiet ticks after the churn");
    churn += 5;
    for (let i = 0; i < 12; i++) await tick();
    assert.equal(trims, 4);
  } finally {
    stop();
  }
});

Deno.test("a burst of releases collects once a gap, then once more when the burst is over", async () => {
  const flavors: string[] = [];
  let trimmed = 0;
  const opts = {
    gapMs: 30,
    sweepMs: 5,
    settleMs: 120,
    collect: (o?: { flavor: string }) => void flavors.push(o!.flavor),
    trim: () => void trimmed++,
  };
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
  // An ingest: a release every 40 ms for 400 ms, each past the gap.
  for (let i = 0; i < 10; i++) releaseMemorySoon(opts), await wait(40);
  const during = flavors.length;
  assert.ok(
    during >= 5 && during <= 10,
    `a collection after most builds, at most one a gap (${during})`,
  );
  await wait(250);
  assert.equal(flavors.length, during + 1, "one more once it is over, and only one");
  assert.ok(flavors.every((f) => f === "last-resort"), "each gives V8's empty pages back");
  assert.equal(trimmed, flavors.length, "each collection followed by a trim");
});
