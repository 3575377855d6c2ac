/**
 * The server tells the app a request is on its way before the request's head is read (its
 * `onArrival`): when its connection is accepted, and when the first bytes of the next request
 * come on a kept-alive one. main.ts makes the service's background work stand aside from then.
 */
import assert from "node:assert/strict";
import { probeServer } from "./raw.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Reads from `conn` until what came holds `text`. */
async function readUntil(conn: Deno.Conn, text: string): Promise<string> {
  const buf = new Uint8Array(16 * 1024);
  let got = "";
  while (!got.includes(text)) {
    const n = await conn.read(buf);
    if (n === null) throw new Error(`closed before ${JSON.stringify(text)}; got ${got}`);
    got += decoder.decode(buf.subarray(0, n));
  }
  return got;
}

async function until(what: string, done: () => boolean) {
  for (let waited = 0; !done(); waited += 5) {
    if (waited > 2000) throw new Error(`waited 2 s for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

Deno.test("server - a request on its way is told to the app from its connection's accept, and from the first bytes of the next one on a kept-alive connection", async () => {
  // At each arrival, how many requests the app had been given.
  const arrivals: number[] = [];
  let given: unknown[] = [];
  const { server, seen, port } = probeServer({ onArrival: () => arrivals.push(given.length) });
  given = seen;
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    // Connected, nothing sent yet: the app is told all the same.
    await until("the accept's arrival", () => arrivals.length > 0);
    assert.equal(arrivals[0], 0);
    await conn.write(encoder.encode("GET /first HTTP/1.1\r\nHost: example.test\r\n\r\n"));
    assert.match(await readUntil(conn, "GET /first"), /^HTTP\/1\.1 200 /);
    assert.equal(seen.length, 1);

    // The connection idles, then carries another request: told again, before the app has it.
    await new Promise((r) => setTimeout(r, 50));
    const before = arrivals.length;
    await conn.write(encoder.encode("GET /second HTTP/1.1\r\nHost: example.test\r\n\r\n"));
    assert.match(await readUntil(conn, "GET /second"), /^HTTP\/1\.1 200 /);
    assert.deepEqual(seen.map((s) => s.path), ["/first", "/second"]);
    assert.ok(arrivals.length > before, "the second request was told");
    assert.deepEqual(arrivals.slice(before), [1], "once, while the app had only the first");
  } finally {
    conn.close();
    await server.shutdown();
  }
});
