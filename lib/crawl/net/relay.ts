/**
 * The HTTPS half of GuardedFetcher's pinning: a CONNECT proxy on loopback that dials
 * only an address the fetcher checked, so TLS runs end to end to exactly that address.
 */
import { randomBase62 } from "../../sites/keys.ts";

/**
 * A CONNECT proxy on loopback that dials only addresses pinned by this process.
 * The pin id travels as the proxy user name; unknown ids and other ports are refused,
 * so nothing else on the machine can use the relay to reach anything.
 */
export class ConnectRelay {
  #listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  #pins = new Map<string, { ip: string; port: number }>();
  #conns = new Set<Deno.Conn>();
  #tasks = new Set<Promise<void>>();
  #serving: Promise<void>;
  readonly port = this.#listener.addr.port;

  /** Starts listening; `connectTimeoutMs` bounds each dial to a pinned address. */
  constructor(private connectTimeoutMs: number) {
    this.#serving = this.#serve();
  }

  /** Pins an address; the id returned, sent as the proxy user name, lets a client reach it. */
  pin(ip: string, port: number): string {
    const id = randomBase62(24);
    this.#pins.set(id, { ip, port });
    return id;
  }

  async #serve() {
    try {
      for await (const conn of this.#listener) {
        this.#conns.add(conn);
        const task = this.#handle(conn).catch(() => {}).finally(() => {
          this.#conns.delete(conn);
          this.#tasks.delete(task);
          try {
            conn.close();
          } catch { /* already closed */ }
        });
        this.#tasks.add(task);
      }
    } catch { /* listener closed */ }
  }

  async #handle(conn: Deno.Conn) {
    const head = await readHead(conn);
    const m = head && /^CONNECT \[?([^\s\]]+)\]?:(\d+) HTTP\/1\.[01]\r\n/.exec(head.text);
    const auth = head &&
      /\r\nproxy-authorization:\s*basic\s+([A-Za-z0-9+/=]+)\r\n/i.exec(head.text);
    let pin: { ip: string; port: number } | undefined;
    try {
      pin = auth ? this.#pins.get(atob(auth[1]).split(":")[0]) : undefined;
    } catch { /* bad base64 */ }
    if (!m || !pin || Number(m[2]) !== pin.port) {
      await conn.write(new TextEncoder().encode("HTTP/1.1 403 Forbidden\r\n\r\n"));
      return;
    }
    const upstream = await Deno.connect({
      hostname: pin.ip,
      port: pin.port,
      signal: AbortSignal.timeout(this.connectTimeoutMs),
    }).catch(() => null);
    if (!upstream) {
      await conn.write(new TextEncoder().encode("HTTP/1.1 502 Bad Gateway\r\n\r\n"));
      return;
    }
    this.#conns.add(upstream);
    try {
      await conn.write(new TextEncoder().encode("HTTP/1.1 200 Connection Established\r\n\r\n"));
      if (head.rest.byteLength) await upstream.write(head.rest);
      await Promise.race([
        conn.readable.pipeTo(upstream.writable).catch(() => {}),
        upstream.readable.pipeTo(conn.writable).catch(() => {}),
      ]);
    } finally {
      this.#conns.delete(upstream);
      try {
        upstream.close();
      } catch { /* already closed */ }
    }
  }

  /** Stops listening and closes every relayed connection. */
  async close() {
    this.#listener.close();
    for (const c of this.#conns) {
      try {
        c.close();
      } catch { /* already closed */ }
    }
    await this.#serving;
    await Promise.all(this.#tasks);
  }
}

/** Reads a request head (at most 8 KiB) and whatever bytes came after it. */
async function readHead(conn: Deno.Conn): Promise<{ text: string; rest: Uint8Array } | null> {
  const buf = new Uint8Array(8192);
  let len = 0;
  while (len < buf.length) {
    const n = await conn.read(buf.subarray(len));
    if (n === null) return null;
    len += n;
    const text = new TextDecoder("latin1").decode(buf.subarray(0, len));
    const end = text.indexOf("\r\n\r\n");
    if (end >= 0) return { text: text.slice(0, end + 2), rest: buf.slice(end + 4, len) };
  }
  return null;
}
