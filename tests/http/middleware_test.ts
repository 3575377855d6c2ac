import assert from "node:assert/strict";
import { isoTime, LineWriter } from "../../lib/http/middleware.ts";
import { serveHttp } from "../../lib/http/server/mod.ts";
import { createSite, putPages, startApp } from "../helpers.ts";

Deno.test("access log - every request is logged once, with the status and request id the client got", async () => {
  const lines: Record<string, unknown>[] = [];
  const t = await startApp({ log: (l) => lines.push(l) });
  const site = await createSite(t, "free");
  await putPages(t, site, [{ url: "/kettle", title: "Kettle", body: "A quiet kettle." }]);
  lines.length = 0;
  const key = site.publicKey;
  const asks: [string, RequestInit?][] = [
    [`/api/search?key=${key}&q=kettle`], // 200, then the same answer from the cache
    [`/api/search?key=${key}&q=kettle`],
    [`/api/search?key=${key}&q=kettle&page=0`], // 400
    [`/api/search?q=kettle`], // 401
    [`/api/search?key=${key}&q=kettle`, { method: "POST" }], // 405
    [`/api/search`, { method: "OPTIONS", headers: { "Access-Control-Request-Method": "GET" } }],
    [`/api/no-such-thing`], // 404
    [`/healthz`],
  ];
  const got: { status: number; id: string | null }[] = [];
  for (const [path, init] of asks) {
    const res = await t.call(path, init);
    await res.body?.cancel();
    got.push({ status: res.status, id: res.headers.get("x-request-id") });
  }
  assert.deepEqual(got.map((g) => g.status), [200, 200, 400, 401, 405, 204, 404, 200]);
  assert.equal(lines.length, asks.length);
  assert.deepEqual(lines.map((l) => l.status), got.map((g) => g.status));
  assert.deepEqual(lines.map((l) => l.request_id), got.map((g) => g.id));
  assert.equal(new Set(got.map((g) => g.id)).size, asks.length, "every request has its own id");
  t.close();
});

Deno.test("access log - answers made in one go still carry the CORS headers and request id, in process and on our server", async () => {
  const t = await startApp();
  const site = await createSite(t, "free");
  await putPages(t, site, [{ url: "/kettle", title: "Kettle", body: "A quiet kettle." }]);
  const path = `/api/search?key=${site.publicKey}&q=kettle`;
  const inProcess = await t.call(path, { headers: { Origin: "https://any.example" } });
  const bytes = new Uint8Array(await inProcess.arrayBuffer());
  const server = serveHttp({ hostname: "127.0.0.1", port: 0 }, t.fetch);
  try {
    // The second answer comes from the result cache and is sent without being read back.
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`http://127.0.0.1:${server.addr.port}${path}`, {
        headers: { Origin: "https://any.example" },
      });
      assert.equal(res.status, 200);
      assert.deepEqual(new Uint8Array(await res.arrayBuffer()), bytes);
      assert.equal(res.headers.get("content-length"), String(bytes.byteLength));
      assert.equal(res.headers.get("content-type"), "application/json");
      assert.equal(res.headers.get("access-control-allow-origin"), "*");
      assert.match(res.headers.get("access-control-expose-headers") ?? "", /RateLimit/);
      assert.match(res.headers.get("ratelimit") ?? "", /r=\d+/);
      assert.match(res.headers.get("x-request-id") ?? "", /^req_[0-9A-Za-z]{20}$/);
    }
  } finally {
    await server.shutdown();
    t.close();
  }
});

Deno.test("access log - lines go out in order, in few writes, and none is lost", async () => {
  const dir = await Deno.makeTempDir();
  const file = await Deno.open(`${dir}/log`, { write: true, create: true });
  let writes = 0;
  const out = new LineWriter({ write: (p) => (writes++, file.write(p)) });
  for (let burst = 0; burst < 5; burst++) {
    for (let i = 0; i < 1000; i++) out.write(JSON.stringify({ n: burst * 1000 + i }));
    await new Promise((r) => setTimeout(r, 5));
  }
  await out.flush();
  file.close();
  const lines = (await Deno.readTextFile(`${dir}/log`)).trimEnd().split("\n");
  assert.deepEqual(lines.map((l) => JSON.parse(l).n), Array.from({ length: 5000 }, (_, i) => i));
  assert.ok(writes <= 10, `${writes} writes for 5,000 lines`);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("access log - a stalled output holds a bounded number of lines and says how many it dropped", async () => {
  const stalled = Promise.withResolvers<void>();
  const written: string[] = [];
  const out = new LineWriter({
    async write(p) {
      await stalled.promise;
      written.push(new TextDecoder().decode(p));
      return p.byteLength;
    },
  }, 100);
  out.write("first");
  await new Promise((r) => setTimeout(r, 5)); // "first" is being written; the output hangs
  for (let i = 0; i < 1000; i++) out.write(`line ${i}`);
  stalled.resolve();
  await out.flush();
  const lines = written.join("").trimEnd().split("\n");
  assert.deepEqual(lines.slice(0, 2), ["first", "line 0"]);
  assert.equal(lines.length, 1 + 100 + 1);
  assert.equal(lines.at(-2), "line 99");
  assert.deepEqual(JSON.parse(lines.at(-1)!), { level: "error", event: "log_dropped", lines: 900 });
});

Deno.test("access log - with a batch interval, lines of separate bursts within it share one write, in order", async () => {
  const written: string[] = [];
  const out = new LineWriter(
    {
      write(p) {
        written.push(new TextDecoder().decode(p));
        return Promise.resolve(p.byteLength);
      },
    },
    100_000,
    50,
  );
  for (let burst = 0; burst < 3; burst++) {
    for (let i = 0; i < 10; i++) out.write(`line ${burst * 10 + i}`);
    await new Promise((r) => setTimeout(r, 0)); // another turn of the event loop
  }
  await out.flush();
  assert.equal(written.length, 1);
  assert.deepEqual(
    written[0].trimEnd().split("\n"),
    Array.from({ length: 30 }, (_, i) => `line ${i}`),
  );
  out.write("later");
  await out.flush();
  assert.deepEqual(written, [written[0], "later\n"]);
});

Deno.test("access log - times are written as Date's ISO 8601 text, to the millisecond", () => {
  const times = [
    0,
    999.9,
    1000,
    Date.UTC(2026, 10, 26, 12, 59, 59, 7),
    Date.UTC(2026, 10, 26, 12, 59, 59, 7) + 0.5,
    Date.UTC(2026, 11, 31, 23, 59, 59, 999),
    Date.UTC(2027, 0, 1),
    Date.UTC(2027, 0, 1, 0, 0, 0, 80),
  ];
  for (const t of [...times, ...times.toReversed()]) {
    assert.equal(isoTime(t), new Date(Math.floor(t)).toISOString(), String(t));
  }
});
