/**
 * One client hoarding connections does not keep another out. Hoarders connect from other
 * loopback addresses (Deno.connect cannot bind a source address; node:net's localAddress can).
 */
import assert from "node:assert/strict";
import net from "node:net";
import { serveHttp } from "../../lib/http/server/mod.ts";
import { peerKey } from "../../lib/http/server/conns.ts";
import { connect, readUntilClosed, startMain } from "../fixtures/instance.ts";

/** `n` silent sockets from `from`; reconnecting when closed while `redial` says so. */
function hoard(port: number, from: string, n: number, redial = () => false) {
  const sockets = new Set<net.Socket>();
  let opened = 0;
  const open = () =>
    new Promise<void>((resolve) => {
      const s = net.connect({ host: "127.0.0.1", port, localAddress: from });
      sockets.add(s);
      s.on("connect", () => (opened++, resolve()));
      s.on("error", () => resolve());
      s.on("close", () => {
        sockets.delete(s);
        resolve();
        if (redial()) open();
      });
    });
  return {
    ready: Promise.all(Array.from({ length: n }, open)),
    opened: () => opened,
    close() {
      for (const s of sockets) s.destroy();
    },
  };
}

/** A GET on a new connection from 127.0.0.1: its status-line and how long it took. */
async function timedGet(port: number) {
  const started = performance.now();
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(
    new TextEncoder().encode("GET /hi HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
  );
  const { text } = await readUntilClosed(conn, 5000);
  conn.close();
  return { line: text.split("\r\n")[0], ms: performance.now() - started };
}

const app = () => new Response("hi");

Deno.test("fairness - 300 silent sockets from one address: it holds 32, and another address is answered within a second", async () => {
  const server = serveHttp({ hostname: "127.0.0.1", port: 0 }, app);
  const port = server.addr.port;
  const hoarder = hoard(port, "127.0.0.2", 300);
  await hoarder.ready;
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(hoarder.opened(), 300);
  const stats = server.stats();
  assert.ok(stats.open <= 32, `open ${stats.open}`);
  // Each beyond 32 closed one of its own once they were slow, or was refused while none was.
  assert.ok(stats.evictedSlow + stats.refusedConnections >= 268, JSON.stringify(stats));
  for (let i = 0; i < 5; i++) {
    const got = await timedGet(port);
    assert.equal(got.line, "HTTP/1.1 200 OK");
    assert.ok(got.ms < 1000, `answered in ${got.ms.toFixed(0)} ms`);
  }
  console.log(`300 silent sockets from one address: ${JSON.stringify(server.stats())}`);
  hoarder.close();
  await server.shutdown();
});

Deno.test("fairness - at the global cap the biggest holder gives way, even to hoarders that redial at once", async () => {
  const server = serveHttp({ hostname: "127.0.0.1", port: 0, maxConnections: 48 }, app);
  const port = server.addr.port;
  let hoarding = true;
  const a = hoard(port, "127.0.0.2", 40, () => hoarding);
  const b = hoard(port, "127.0.0.3", 40, () => hoarding);
  await Promise.all([a.ready, b.ready]);
  await new Promise((r) => setTimeout(r, 400)); // their connections are slow by now
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const got = await timedGet(port);
    assert.equal(got.line, "HTTP/1.1 200 OK");
    times.push(got.ms);
  }
  hoarding = false;
  const stats = server.stats();
  console.log(
    `two redialling hoarders at a cap of 48: answered in ${times.map((t) => t.toFixed(0))} ms; ${
      JSON.stringify(stats)
    }`,
  );
  assert.ok(Math.max(...times) < 1000, `slowest ${Math.max(...times).toFixed(0)} ms`);
  assert.ok(stats.open <= 48);
  a.close();
  b.close();
  await server.shutdown();
});

Deno.test("fairness - an address whose connections are all being answered is refused with a 503 past its cap", async () => {
  const release = Promise.withResolvers<void>();
  const server = serveHttp(
    { hostname: "127.0.0.1", port: 0, maxConnectionsPerIp: 2 },
    async () => (await release.promise, new Response("late")),
  );
  const url = `http://127.0.0.1:${server.addr.port}`;
  const busy = await Promise.all([connect(url), connect(url)]);
  for (const c of busy) {
    await c.write(new TextEncoder().encode("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
  }
  await new Promise((r) => setTimeout(r, 100));
  const third = await connect(url);
  const { text, closed } = await readUntilClosed(third, 2000);
  assert.ok(closed);
  assert.match(text, /^HTTP\/1\.1 503 Service Unavailable\r\n[\s\S]*retry-after: 1/);
  assert.equal(server.stats().refusedConnections, 1);
  release.resolve();
  for (const c of [...busy, third]) c.close();
  await server.shutdown();
});

Deno.test("fairness - addresses are counted as clients hold them: IPv4 as it is, IPv6 by its /64", () => {
  const key = (hostname: string) => peerKey({ transport: "tcp", hostname, port: 1 });
  assert.equal(key("192.0.2.7"), "192.0.2.7");
  assert.equal(key("::ffff:192.0.2.7"), "192.0.2.7");
  assert.equal(key("2001:db8:1:2:aaaa::1"), key("2001:db8:1:2:bbbb:cccc:dddd:eeee"));
  assert.notEqual(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
  assert.equal(key("::1"), "0:0:0:0::/64");
});

Deno.test("fairness - main.ts takes MAX_CONNECTIONS_PER_IP from the environment and the operator's stats count what it evicts", async () => {
  const dir = await Deno.makeTempDir();
  const inst = await startMain({ KV_PATH: `${dir}/kv`, MAX_CONNECTIONS_PER_IP: "3" }, {
    operatorToken: "op_fairness_test",
  });
  const conns = [];
  for (let i = 0; i < 4; i++) {
    if (i === 3) await new Promise((r) => setTimeout(r, 400)); // the first is slow by now
    conns.push(await connect(inst.url));
  }
  // The fourth from this address closes the first, which had sent nothing.
  assert.ok((await readUntilClosed(conns[0], 1000)).closed, "the oldest silent one was closed");
  assert.equal((await readUntilClosed(conns[3], 200)).closed, false);
  for (const c of conns) c.close();
  // The operator's stats count it.
  const stats = await fetch(`${inst.url}/api/admin/stats`, {
    headers: { Authorization: "Bearer op_fairness_test" },
  });
  const { http } = await stats.json();
  assert.ok(http.evictedSlow >= 1 && http.accepted >= 5, JSON.stringify(http));
  await inst.stop();
  await Deno.remove(dir, { recursive: true });
});
