/**
 * The indexes' page text kept in a file (lib/storage/text_spill.ts): every range reads back
 * the bytes kept, nothing is left in the directory, a file that cannot be written leaves the
 * text in memory, and text freed by V8 is given back: once a file holds more freed bytes than
 * live ones, the live text moves to a new file and the old one is closed.
 */
import assert from "node:assert/strict";
import { TextSpill } from "../../lib/storage/text_spill.ts";
import { seeded } from "../fixtures/seeded.ts";

const randomBytes = (n: number, seed: number) => {
  const out = new Uint8Array(n);
  const rand = seeded(seed);
  for (let i = 0; i < n; i++) out[i] = Math.floor(rand() * 256);
  return out;
};

Deno.test("text spill - every range reads back the bytes kept; the file is gone from its directory", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const spill = TextSpill.open(dir)!;
    assert.ok(spill, "a spill opens in a writable directory");
    const kept = [0, 1, 700, 65_536, 300_001].map((n, i) => randomBytes(n, i + 1));
    const arenas = kept.map((b) => spill.keep(b));
    kept.forEach((bytes, i) => {
      const arena = arenas[i];
      assert.equal(arena.byteLength, bytes.length);
      assert.deepEqual(arena.read(0, bytes.length), bytes);
      for (const [from, to] of [[0, 1], [bytes.length >> 1, bytes.length], [3, 3 + 4_096]]) {
        const a = Math.min(from, bytes.length), b = Math.min(to, bytes.length);
        assert.deepEqual(arena.read(a, b), bytes.subarray(a, b), `arena ${i} [${a}, ${b})`);
      }
    });
    const total = kept.reduce((n, b) => n + b.length, 0);
    assert.deepEqual(spill.stats(), { liveBytes: total, fileBytes: total, inMemory: 0 });
    assert.deepEqual([...Deno.readDirSync(dir)], [], "no file is left in the directory");
    spill.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("text spill - none where no file can be made; text kept in memory once the file fails", async () => {
  assert.equal(TextSpill.open("/nonexistent/for/sure"), null);
  const dir = await Deno.makeTempDir();
  try {
    const spill = TextSpill.open(dir)!;
    spill.close(); // its file can no longer be written
    const bytes = randomBytes(5_000, 9);
    const arena = spill.keep(bytes);
    bytes.fill(0); // a copy is kept, not the caller's bytes
    assert.deepEqual(arena.read(10, 20), randomBytes(5_000, 9).subarray(10, 20));
    assert.equal(spill.stats().inMemory, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// V8 decides when what read an arena is collected: a process of its own collects on demand.
const FREED = `
import { TextSpill } from ${
  JSON.stringify(new URL("../../lib/storage/text_spill.ts", import.meta.url).href)
};
const dir = Deno.args[0];
const spill = TextSpill.open(dir, { rotateBytes: 1 << 20, moveBytes: 64 << 10 });
const bytes = (n, seed) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 255);
let arenas = Array.from({ length: 8 }, (_, i) => spill.keep(bytes(512 << 10, i)));
const live = [arenas[2], arenas[5]];
const before = spill.stats();
arenas = null;
for (let i = 0; i < 50 && spill.stats().fileBytes > 3 * (512 << 10); i++) {
  globalThis.gc();
  await new Promise((r) => setTimeout(r, 20));
}
const same = live.every((a, k) => {
  const want = bytes(512 << 10, k ? 5 : 2), got = a.read(0, a.byteLength);
  return got.length === want.length && got.every((b, i) => b === want[i]);
});
console.log(JSON.stringify({ before, after: spill.stats(), same }));
`;

Deno.test("text spill - freed text is given back: the live text moves to a new file, the old one closes", async () => {
  const dir = await Deno.makeTempDir();
  const script = `${dir}/freed.js`;
  try {
    await Deno.writeTextFile(script, FREED);
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--v8-flags=--expose-gc", `--allow-read`, `--allow-write=${dir}`, script, dir],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const { before, after, same } = JSON.parse(new TextDecoder().decode(out.stdout));
    const arena = 512 << 10;
    assert.deepEqual(before, { liveBytes: 8 * arena, fileBytes: 8 * arena, inMemory: 0 });
    // Six of eight freed: the live ones were moved to a new file and the old one closed. The
    // new file may hold one more, moved before it was freed (it was live when the file was left).
    assert.equal(after.liveBytes, 2 * arena);
    assert.ok(after.fileBytes <= 3 * arena, `${after.fileBytes} bytes in files`);
    assert.equal(after.inMemory, 0);
    assert.ok(same, "the moved text reads back as it was kept");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
