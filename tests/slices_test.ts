import assert from "node:assert/strict";
import { decodeInSlices, Slices } from "../lib/slices.ts";

/** Busy for `ms` without yielding. */
const spin = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* work */ }
};

Deno.test("a long piece of work lets a waiting HTTP request be answered between its slices", async () => {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    return new Response("ok");
  });
  try {
    const answered = fetch(`http://127.0.0.1:${server.addr.port}/`).then((r) => r.text());
    let got = false, slicesWhenAnswered = -1;
    answered.then(() => got = true);
    const slices = new Slices(2);
    for (let i = 0; i < 200 && slicesWhenAnswered < 0; i++) {
      spin(1);
      await slices.pause();
      if (got) slicesWhenAnswered = i;
    }
    assert.equal(await answered, "ok");
    // Answered within a few slices (~1 ms each), not once the work is over.
    assert.ok(slicesWhenAnswered >= 0, "answered while the work was still going on");
    assert.ok(slicesWhenAnswered < 50, `answered after ${slicesWhenAnswered} slices`);
  } finally {
    await server.shutdown();
  }
});

Deno.test("short work is not interrupted: no turn is taken before a slice has run its time", async () => {
  const slices = new Slices(1_000);
  let turned = false;
  queueMicrotask(() => {}); // microtasks run either way
  setTimeout(() => turned = true, 0);
  for (let i = 0; i < 50; i++) await slices.pause();
  assert.equal(turned, false, "a timer cannot run while pauses return at once");
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(turned, true);
});

Deno.test("a large body is decoded in slices: the same text as one decode, timers running between", async () => {
  // Three-byte and four-byte characters, so slice boundaries fall inside characters.
  const text = "茶 leaf 𝔘 ".repeat(1_500_000); // ~27 MB of UTF-8
  const bytes = new TextEncoder().encode(text);
  let ticks = 0;
  const tick = setInterval(() => ticks++, 0);
  const decoded = await decodeInSlices(bytes, new TextDecoder());
  clearInterval(tick);
  assert.equal(decoded, text);
  assert.ok(ticks >= 10, `${ticks} timer turns during the decode`);
  // A fatal decoder refuses bytes that are not UTF-8, wherever they are.
  const broken = bytes.slice();
  broken[broken.length - 3] = 0xff;
  await assert.rejects(
    decodeInSlices(broken, new TextDecoder("utf-8", { fatal: true })),
    TypeError,
  );
});
