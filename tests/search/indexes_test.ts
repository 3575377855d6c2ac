/** Index refreshes never stall the server: searches during a 28 MB upsert, over real HTTP. */
import assert from "node:assert/strict";
import { startMain } from "../fixtures/instance.ts";
import { pick, seeded } from "../fixtures/seeded.ts";

const TOKEN = "op_index_slices_test";
const WORDS = ("kettle teapot infuser leaf brew steep cup mug saucer tray spoon strainer " +
  "green black oolong white herbal rooibos chai matcha sencha assam darjeeling ceylon").split(" ");

/** About `chars` characters of words, varied by `seed`. */
function text(chars: number, seed: number): string {
  const out: string[] = [];
  const rand = seeded(seed);
  let n = 0;
  while (n < chars) {
    const w = pick(rand, WORDS) + Math.floor(rand() * 97);
    out.push(w);
    n += w.length + 1;
  }
  return out.join(" ").slice(0, chars);
}

/** CPU time of a process in ms (utime + stime from /proc, read through cat). */
async function cpuMs(pid: number): Promise<number> {
  const out = await new Deno.Command("cat", { args: [`/proc/${pid}/stat`] }).output();
  const fields = new TextDecoder().decode(out.stdout).split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10; // clock ticks of 10 ms
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];
}

Deno.test("indexes - searches during a 28 MB upsert answer in under 100 ms at p95, with no stall (1 s when the machine is busy)", async () => {
  const dir = await Deno.makeTempDir();
  const inst = await startMain({ KV_PATH: `${dir}/kv` }, { operatorToken: TOKEN });
  const headers = { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" };
  const created = await (await fetch(`${inst.url}/api/admin/sites`, {
    method: "POST",
    headers,
    body: JSON.stringify({ name: "Big", plan: "business" }),
  })).json();
  const demo = (await (await fetch(`${inst.url}/api/admin/sites`, { headers })).json()).sites
    .find((s: { id: string }) => s.id !== created.site.id);
  const patched = await fetch(`${inst.url}/api/admin/sites/${demo.id}`, {
    method: "PATCH",
    headers,
    body: JSON.stringify({ limits: { searchesPerMinute: 1_000_000 } }),
  });
  assert.equal(patched.status, 200);
  await patched.body?.cancel();
  const pages = Array.from({ length: 500 }, (_, i) => ({
    url: `/big/${i}`,
    title: `Big page ${i}`,
    body: text(56_000, i),
  }));
  const body = JSON.stringify({ pages });
  assert.ok(body.length > 28_000_000);

  const probe = async () => {
    const started = performance.now();
    const res = await fetch(`${inst.url}/api/search?q=kettle&key=${inst.publicKey}`);
    await res.body?.cancel();
    return { status: res.status, ms: performance.now() - started };
  };
  // The server's CPU time over the upsert says how much of a core it got: on a machine shared
  // with other work, every wait stretches by the same factor.
  const cpu0 = await cpuMs(inst.pid);
  const wall0 = performance.now();

  let uploading = true;
  const upload = fetch(`${inst.url}/api/admin/sites/${created.site.id}/pages`, {
    method: "PUT",
    headers,
    body,
  }).then(async (res) => {
    const json = await res.json();
    uploading = false;
    return { status: res.status, json };
  });
  const times: number[] = [];
  while (uploading) {
    const r = await probe();
    assert.equal(r.status, 200);
    times.push(r.ms);
    await new Promise((r) => setTimeout(r, 10));
  }
  const done = await upload;
  const slowdown = Math.max(
    1,
    (performance.now() - wall0) / Math.max(1, await cpuMs(inst.pid) - cpu0),
  );
  assert.equal(done.status, 200);
  assert.equal(done.json.counts.created, 500);
  const p99 = percentile(times, 0.99);
  console.log(
    `${times.length} searches during the upsert: p50 ${percentile(times, 0.5).toFixed(1)} ms, ` +
      `p99 ${p99.toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms ` +
      `(machine slowdown x${slowdown.toFixed(1)})`,
  );
  assert.ok(times.length >= 20, "searches ran throughout the upsert");
  // Sharing the machine, waits stretch unpredictably: the bar is 100 ms when the server had its
  // core, 1 s (still far below the multi-second stall of a blocking refresh) when it did not.
  // It is held at p95: p99 of ~150 probes is the second slowest, where a garbage collection of
  // this process (which is sending the 28 MB) or the server's lands; measured p99 is 50–115 ms.
  const bar = slowdown < 1.5 ? 100 : 1000;
  const p95 = percentile(times, 0.95);
  assert.ok(p95 < bar, `p95 ${p95.toFixed(1)} ms, slowdown x${slowdown.toFixed(1)}`);
  assert.ok(p99 < 10 * bar, `p99 ${p99.toFixed(1)} ms: a stall, not a pause`);
  // The new pages are searchable once the upsert answered.
  const res = await fetch(`${inst.url}/api/search?q=teapot&key=${created.site.publicKey}`);
  assert.ok((await res.json()).meta.found > 0);
  await inst.stop();
  await Deno.remove(dir, { recursive: true });
});
