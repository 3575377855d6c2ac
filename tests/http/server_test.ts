/** The server under abuse: main.ts in a child process, sockets on 127.0.0.1. */
import assert from "node:assert/strict";
import { serveHttp } from "../../lib/http/server/mod.ts";
import { connect, readUntilClosed, startMain, timedSearch } from "../fixtures/instance.ts";

const enc = new TextEncoder();

async function tempKv() {
  const dir = await Deno.makeTempDir();
  return { KV_PATH: `${dir}/sitesearch.kv`, dir };
}

const closeAll = (conns: Deno.Conn[]) =>
  conns.forEach((c) => {
    try {
      c.close();
    } catch { /* closed by the server */ }
  });

Deno.test("server - running out of file descriptors never kills the process; service resumes after", async () => {
  const { dir, ...env } = await tempKv();
  // Caps above the file limit, so descriptors run out before a cap is reached.
  const inst = await startMain(
    { ...env, MAX_CONNECTIONS: "5000", MAX_CONNECTIONS_PER_IP: "5000" },
    { fileLimit: 160 },
  );
  const conns: Deno.Conn[] = [];
  const opened = await Promise.allSettled(
    Array.from({ length: 260 }, () =>
      Deno.connect({
        hostname: "127.0.0.1",
        port: Number(new URL(inst.url).port),
        signal: AbortSignal.timeout(3000),
      })),
  );
  for (const r of opened) if (r.status === "fulfilled") conns.push(r.value);
  assert.ok(conns.length > 160, `more connections than descriptors (${conns.length})`);
  await new Promise((r) => setTimeout(r, 500));
  assert.ok(inst.alive(), "the process is still running: " + inst.out().slice(-500));
  closeAll(conns);
  await new Promise((r) => setTimeout(r, 300));
  const after = await timedSearch(inst);
  assert.equal(after.status, 200);
  assert.ok(inst.alive());
  assert.match(inst.out(), /accept_failed/, "the shortage is logged");
  await inst.stop();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("server - a body sent a byte per TCP segment costs memory by its size, not by its segments", async () => {
  const { dir, ...env } = await tempKv();
  const inst = await startMain(env);
  await timedSearch(inst); // warm
  const before = await inst.memory();
  const body = JSON.stringify({ query: "shipping".padEnd(600, " "), pad: "x".repeat(16_000) })
    .slice(0, 16 * 1024);
  const clients = 4;
  const sent = await Promise.all(Array.from({ length: clients }, async () => {
    const conn = await connect(inst.url);
    conn.setNoDelay(true);
    const bytes = enc.encode(body);
    await conn.write(enc.encode(
      `POST /api/summarize?key=${inst.publicKey} HTTP/1.1\r\nHost: x\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${bytes.byteLength}\r\n\r\n`,
    ));
    for (let i = 0; i < bytes.byteLength; i++) {
      await conn.write(bytes.subarray(i, i + 1));
      if (i % 64 === 0) await new Promise((r) => setTimeout(r, 0));
    }
    const { text } = await readUntilClosed(conn, 2000);
    conn.close();
    return text;
  }));
  for (const text of sent) assert.match(text, /^HTTP\/1\.1 (200|400)/);
  const after = await inst.memory();
  const grew = after.peakMb - before.rssMb;
  console.log(
    `slow body x${clients}: RSS ${before.rssMb.toFixed(0)} -> peak ${after.peakMb.toFixed(0)} MB`,
  );
  assert.ok(grew < 60, `memory grew ${grew.toFixed(0)} MB`);
  await inst.stop();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("server - idle and unfinished connections are closed after the header timeout", async () => {
  const { dir, ...env } = await tempKv();
  const inst = await startMain({
    ...env,
    HTTP_HEADER_TIMEOUT_MS: "400",
    MAX_CONNECTIONS_PER_IP: "100",
  });
  const conns = await Promise.all(Array.from({ length: 60 }, () => connect(inst.url)));
  // A third say nothing, a third stop mid-head, a third finish a request and stay idle.
  await Promise.all(conns.map((c, i) =>
    i % 3 === 0 ? null : c.write(enc.encode(
      i % 3 === 1
        ? "GET /api/site HTTP/1.1\r\nHost: x\r\nX-Slow: "
        : "GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n",
    ))
  ));
  const started = performance.now();
  const results = await Promise.all(conns.map((c) => readUntilClosed(c, 3000)));
  const took = performance.now() - started;
  assert.ok(results.every((r) => r.closed), "every connection was closed");
  assert.ok(took < 2500, `closed within ${took.toFixed(0)} ms`);
  assert.ok(results.filter((_, i) => i % 3 === 2).every((r) => r.text.startsWith("HTTP/1.1 404")));
  closeAll(conns);
  assert.equal((await timedSearch(inst)).status, 200);
  await inst.stop();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("server - a body that does not arrive in time is answered 408 and its connection closed", async () => {
  const { dir, ...env } = await tempKv();
  const inst = await startMain({ ...env, HTTP_BODY_TIMEOUT_MS: "400" });
  const conn = await connect(inst.url);
  await conn.write(enc.encode(
    `POST /api/summarize?key=${inst.publicKey} HTTP/1.1\r\nHost: x\r\n` +
      `Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query":`,
  ));
  const started = performance.now();
  const { text, closed } = await readUntilClosed(conn, 3000);
  conn.close();
  assert.ok(closed);
  assert.match(text, /^HTTP\/1\.1 408 /);
  assert.match(text, /"code":"REQUEST_TIMEOUT"/);
  assert.ok(performance.now() - started < 2000);
  await inst.stop();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("server - connections are capped: at the cap an idle or a slow one makes room for a new client within a second", async () => {
  const { dir, ...env } = await tempKv();
  const inst = await startMain({ ...env, MAX_CONNECTIONS: "8" });
  const request = enc.encode(`GET /api/site?key=${inst.publicKey} HTTP/1.1\r\nHost: x\r\n\r\n`);
  // Eight served keep-alive connections, idle now: a ninth client is still served at once.
  const idle = await Promise.all(Array.from({ length: 8 }, () => connect(inst.url)));
  for (const c of idle) {
    await c.write(request);
    await c.read(new Uint8Array(4096));
  }
  const served = await timedSearch(inst);
  assert.equal(served.status, 200);
  assert.ok(served.ms < 1000, "served without waiting for a timeout");
  const evicted = (await Promise.all(idle.map((c) => readUntilClosed(c, 200))))
    .filter((r) => r.closed).length;
  assert.ok(evicted >= 1, "an idle connection made room");
  closeAll(idle);
  await new Promise((r) => setTimeout(r, 100));
  // Eight connections stuck mid-head: the oldest gives way to a ninth client.
  const slow = await Promise.all(Array.from({ length: 8 }, () => connect(inst.url)));
  for (const c of slow) await c.write(enc.encode("GET / HTTP/1.1\r\nHost: x\r\n"));
  await new Promise((r) => setTimeout(r, 200));
  const ninth = await timedSearch(inst);
  assert.equal(ninth.status, 200);
  assert.ok(ninth.ms < 1000, `served in ${ninth.ms.toFixed(0)} ms`);
  assert.ok((await readUntilClosed(slow[0], 500)).closed, "the oldest slow one was closed");
  closeAll(slow);
  await inst.stop();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("server - with every connection being answered, a new client waits in the backlog until one ends", async () => {
  const release = Promise.withResolvers<void>();
  let started = 0;
  const server = serveHttp({ hostname: "127.0.0.1", port: 0, maxConnections: 4 }, async () => {
    started++;
    await release.promise;
    return new Response("done");
  });
  const url = `http://127.0.0.1:${server.addr.port}`;
  const busy = await Promise.all(Array.from({ length: 4 }, () => connect(url)));
  for (const c of busy) await c.write(enc.encode("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
  for (let i = 0; i < 50 && started < 4; i++) await new Promise((r) => setTimeout(r, 20));
  assert.equal(started, 4);
  const waiting = await connect(url);
  await waiting.write(enc.encode("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  const early = await readUntilClosed(waiting, 300);
  assert.equal(early.text, "", "not answered while four requests hold every slot");
  assert.equal(server.stats().evictedSlow + server.stats().evictedIdle, 0, "no busy one is taken");
  release.resolve();
  const late = await readUntilClosed(waiting, 2000);
  assert.match(late.text, /^HTTP\/1\.1 200 OK\r\n/);
  closeAll([...busy, waiting]);
  await server.shutdown();
});

Deno.test("server - 1,000 keep-alive clients: the server holds at most its cap, memory stays at a few hundred MB, a probe is fast", async () => {
  const { dir, ...env } = await tempKv();
  // One address opens them all: its own cap is lifted, so the global cap is what holds.
  const inst = await startMain({ ...env, MAX_CONNECTIONS_PER_IP: "5000" }, {
    operatorToken: "op_keepalive_test",
  });
  const sites = await (await fetch(`${inst.url}/api/admin/sites`, {
    headers: { Authorization: "Bearer op_keepalive_test" },
  })).json();
  const patched = await fetch(`${inst.url}/api/admin/sites/${sites.sites[0].id}`, {
    method: "PATCH",
    headers: { Authorization: "Bearer op_keepalive_test", "Content-Type": "application/json" },
    body: JSON.stringify({ limits: { searchesPerMinute: 1_000_000 } }),
  });
  assert.equal(patched.status, 200);
  await patched.body?.cancel();
  const request = enc.encode(
    `GET /api/search?q=coffee&key=${inst.publicKey} HTTP/1.1\r\nHost: x\r\n\r\n`,
  );
  const conns: Deno.Conn[] = [];
  const statuses: string[] = [];
  await Promise.all(Array.from({ length: 1000 }, async () => {
    const conn = await connect(inst.url);
    conns.push(conn);
    try {
      await conn.write(request);
      const buf = new Uint8Array(256);
      const n = await conn.read(buf);
      statuses.push(n ? new TextDecoder().decode(buf.subarray(9, 12)) : "closed");
    } catch {
      statuses.push("reset");
    }
  }));
  // What the server holds open: its file descriptors (sockets, the KV file, …).
  const fds = (await new Deno.Command("ls", { args: [`/proc/${inst.pid}/fd`] }).output()).stdout;
  const open = new TextDecoder().decode(fds).trim().split("\n").length;
  const probes = [];
  for (let i = 0; i < 10; i++) probes.push(await timedSearch(inst));
  const mem = await inst.memory();
  const slowest = Math.max(...probes.map((p) => p.ms));
  console.log(
    `1,000 keep-alive: peak RSS ${mem.peakMb.toFixed(0)} MB, slowest of 10 probes ${
      slowest.toFixed(0)
    } ms, ${open} descriptors open, answers ${JSON.stringify(count(statuses))}`,
  );
  assert.ok(open < 256 + 64, `the server holds at most its cap of connections (${open} open)`);
  assert.ok(probes.every((p) => p.status === 200));
  assert.ok(slowest < 1000, `probe took ${slowest.toFixed(0)} ms`);
  assert.ok(mem.peakMb < 400, `peak RSS ${mem.peakMb.toFixed(0)} MB`);
  assert.ok(statuses.filter((s) => s === "200").length >= 500);
  closeAll(conns);
  assert.ok(inst.alive());
  await inst.stop();
  await Deno.remove(dir, { recursive: true });
});

function count(items: string[]) {
  const out: Record<string, number> = {};
  for (const i of items) out[i] = (out[i] ?? 0) + 1;
  return out;
}

Deno.test("server - HTTP/1.1 framing: pipelined and chunked requests, HEAD, and malformed or oversized heads", async () => {
  const aborted = Promise.withResolvers<void>();
  const server = serveHttp(
    { hostname: "127.0.0.1", port: 0, maxBodyBytes: 1000, maxHeaderBytes: 2048 },
    async (req) => {
      const path = new URL(req.url).pathname;
      if (path === "/hang") {
        req.signal.addEventListener("abort", () => aborted.resolve());
        await aborted.promise;
        return new Response("late");
      }
      const body = req.body ? await req.text() : "";
      return new Response(`${req.method} ${path} ${body}`);
    },
  );
  const url = `http://127.0.0.1:${server.addr.port}`;
  const exchange = async (raw: string) => {
    const conn = await connect(url);
    await conn.write(enc.encode(raw));
    const { text } = await readUntilClosed(conn, 2000);
    conn.close();
    return text;
  };
  const pipelined = await exchange(
    "GET /one HTTP/1.1\r\nHost: x\r\n\r\n" +
      "POST /two HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n" +
      "HEAD /three HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
  );
  assert.match(pipelined, /content-length: 9\r\n\r\nGET \/one HTTP\/1\.1 200 OK/);
  assert.match(pipelined, /POST \/two abcde/);
  assert.match(pipelined, /HTTP\/1\.1 200 OK[\s\S]*HTTP\/1\.1 200 OK[\s\S]*HTTP\/1\.1 200 OK/);
  assert.ok(!pipelined.includes("HEAD /three"), "a HEAD answer has no body");
  assert.match(await exchange("NOT HTTP\r\n\r\n"), /^HTTP\/1\.1 400 /);
  assert.match(
    await exchange(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(4000)}\r\n\r\n`),
    /^HTTP\/1\.1 431 /,
  );
  assert.match(
    await exchange("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n"),
    /^HTTP\/1\.1 413 Content Too Large\r\n/,
  );
  assert.match(
    await exchange(
      "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
    ),
    /^HTTP\/1\.1 400 /,
  );
  // A client that leaves while its request is being worked on aborts the request's signal.
  const leaving = await connect(url);
  await leaving.write(enc.encode("GET /hang HTTP/1.1\r\nHost: x\r\n\r\n"));
  await new Promise((r) => setTimeout(r, 100));
  leaving.close();
  await aborted.promise;
  await server.shutdown();
});

Deno.test("server - a request's signal read after its client left is already aborted", async () => {
  const left = Promise.withResolvers<void>();
  const seen = Promise.withResolvers<boolean>();
  const server = serveHttp({ hostname: "127.0.0.1", port: 0 }, async (req) => {
    await left.promise; // the client is gone before anything looks at the signal
    await new Promise((r) => setTimeout(r, 100));
    seen.resolve(req.signal.aborted);
    return new Response("late");
  });
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
  await conn.write(enc.encode("GET /work HTTP/1.1\r\nHost: x\r\n\r\n"));
  await new Promise((r) => setTimeout(r, 50));
  conn.close();
  left.resolve();
  assert.equal(await seen.promise, true);
  await server.shutdown();
});
