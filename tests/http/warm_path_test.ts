/**
 * The start's warm-up of the request path (lib/http/warm_path.ts): its searches go the whole way
 * (our server, the early route, its access line) and answer 200; it leaves nothing in the
 * service's own KV or log; and it waits while requests arrive at the service's server.
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { type WarmAppOptions, warmRequestPath } from "../../lib/http/warm_path.ts";
import { noteArrival, SEARCH_QUIET_MS, searchesPaused } from "../../lib/search/mod.ts";

/** An `open` for the warm-up that notes its access lines and when each search reached the route. */
function recording() {
  const lines: Record<string, unknown>[] = [], reached: number[] = [];
  const open = (o: WarmAppOptions) => {
    const made = createApp({ ...o, log: (l) => lines.push(l), demo: false, indexSnapshots: false });
    const early: typeof made.early = (req) => {
      reached.push(performance.now());
      return made.early(req);
    };
    return { services: made.services, early };
  };
  const searches = () => lines.filter((l) => l.path === "/api/search");
  return { open, lines, reached, searches };
}

Deno.test("warm path - every search is answered 200 through the server, the early route and its access line", async () => {
  const r = recording();
  const answered = await warmRequestPath(r.open, 40);
  assert.equal(answered, 40);
  assert.equal(r.reached.length, 40);
  const logged = r.searches();
  assert.equal(logged.length, 40);
  assert.ok(
    logged.every((l) => l.status === 200 && l.method === "GET" && l.site),
    "200s for the site",
  );
});

Deno.test("warm path - the service's own KV and log are left as they were", async () => {
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/service.kv`);
  const lines: unknown[] = [];
  const service = createApp({ kv, log: (l) => lines.push(l), demo: false });
  try {
    await service.services.sites.create({ name: "Real", plan: "free" });
    const keys = async () => {
      const out: string[] = [];
      for await (const e of kv.list({ prefix: [] })) out.push(JSON.stringify(e.key));
      return out;
    };
    const before = await keys(), logged = lines.length;
    const r = recording();
    assert.equal(await warmRequestPath(r.open, 20), 20);
    assert.deepEqual(await keys(), before);
    assert.equal(lines.length, logged);
  } finally {
    await service.services.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("warm path - no search of its own starts while requests arrive at the service", async () => {
  const r = recording();
  // Requests keep arriving for 600 ms: the warm-up's searches wait until 250 ms after the last.
  noteArrival();
  const arriving = setInterval(noteArrival, 50);
  let lastArrival = performance.now();
  const stop = new Promise<void>((resolve) =>
    setTimeout(() => {
      clearInterval(arriving);
      noteArrival();
      lastArrival = performance.now();
      resolve();
    }, 600)
  );
  const warm = warmRequestPath(r.open, 10);
  await stop;
  assert.equal(await warm, 10);
  assert.ok(r.reached.length === 10);
  const first = Math.min(...r.reached);
  assert.ok(
    first >= lastArrival + 240,
    `first search ${first - lastArrival} ms after the last arrival`,
  );
});

Deno.test("warm path - its searches hold back no background work of the service's own", async () => {
  const r = recording();
  await new Promise((resolve) => setTimeout(resolve, SEARCH_QUIET_MS));
  assert.ok(searchesPaused(), "no search came before");
  assert.equal(await warmRequestPath(r.open, 20), 20);
  assert.ok(searchesPaused(), "the warm-up's 20 searches were not noted as visitors'");
});
