/**
 * The request's path, run once over loopback when a process starts, on a throwaway app.
 *
 * It covers our HTTP server, GET /api/search's route (parameters, key, quota, result cache,
 * click tokens, analytics, access line) and the engine. V8 optimizes a function once its calls
 * have used a budget (SEARCHES), and most functions of that path run once a request. A fresh
 * process therefore compiled ~140 of them during its first visitors' searches, on compiler
 * threads that took the core the server shared with those visitors (BENCHMARKS.md). Run here,
 * they are compiled before any visitor comes.
 *
 * Nothing of it is kept. The app has a KV of its own in memory and a log that writes nowhere,
 * and its server listens on a loopback port of its own, closed at the end. It gives way to
 * visitors: a search of its own waits until none of theirs came for a quiet spell.
 */
import { type EarlyHandler, serveHttp } from "./server/mod.ts";
import { latin1, responseHead, sendAll, Wire } from "./wire.ts";
import type { Services } from "../services.ts";
import { rehearseVisitors } from "../search/mod.ts";

/**
 * Searches asked. Maglev took the route's own functions (its parameters, the use case, the
 * quota) between 500 and 1,500 requests: a function is optimized once its calls have used a
 * budget, and a request runs only part of some functions' code.
 */
const SEARCHES = 1500;
/** Pages of the throwaway site: long ones (sections, deflated text), as a real site's are. */
const PAGES = 8;

/** What the warm-up runs: an app made as app.ts makes one, with the options it is given. */
export interface WarmApp {
  services: Services;
  early: EarlyHandler;
}

/**
 * What the warm-up's app is made with: a KV in memory, a log that writes nowhere, and searches
 * that are not noted as visitors' (they hold back no background work of the service's own).
 */
export interface WarmAppOptions {
  kv: Deno.Kv;
  log: () => void;
  noteSearch: () => void;
}

/**
 * Runs `searches` searches one after another over one keep-alive connection, through a fresh
 * app that `open` makes (WarmAppOptions), served on 127.0.0.1, while the service is quiet
 * (search/warm.ts `rehearseVisitors`). Resolves to how many were answered 200.
 */
export async function warmRequestPath(
  open: (options: WarmAppOptions) => WarmApp,
  searches = SEARCHES,
): Promise<number> {
  const kv = await Deno.openKv(":memory:");
  const { services: s, early } = open({ kv, log: () => {}, noteSearch: () => {} });
  const server = serveHttp(
    { hostname: "127.0.0.1", port: 0, early, log: () => {} },
    () => new Response(null, { status: 404 }),
  );
  let conn: Deno.TcpConn | undefined;
  try {
    const { site, publicKey } = await s.sites.create({ name: "Warm-up", plan: "enterprise" });
    await s.sites.update(site.id, (x) => ({ ...x, limits: { searchesPerMinute: 1e9 } }));
    conn = await Deno.connect({ hostname: "127.0.0.1", port: server.addr.port });
    const c = conn, wire = new Wire(c);
    return await rehearseVisitors({
      pages: PAGES,
      searches,
      async store(page) {
        await s.pages.upsert(site.id, page, Infinity);
      },
      async ask(q) {
        const target = `/api/search?q=${encodeURIComponent(q)}&key=${publicKey}`;
        await sendAll(c, encoder.encode(`GET ${target} HTTP/1.1\r\nhost: warm-up\r\n\r\n`));
        return await nextStatus(wire) === 200;
      },
    });
  } finally {
    conn?.close();
    await server.shutdown();
    s.indexes.discard();
    await s.close();
    kv.close();
  }
}

const encoder = new TextEncoder();
/** An answer's head, at most: the early route's carry a few hundred bytes. */
const MAX_HEAD = 16 * 1024;

/** Reads the next answer on the connection whole (its content-length's body); its status. */
async function nextStatus(wire: Wire): Promise<number> {
  const head = await wire.head(MAX_HEAD);
  if (head === null) throw new Error("the warm-up's server closed the connection");
  const { status, headers } = responseHead(latin1(head));
  for (let left = Number(headers.get("content-length") ?? 0); left > 0;) {
    const got = await wire.take(left);
    if (got === null) throw new Error("the warm-up's server closed the connection");
    left -= got.byteLength;
  }
  return status;
}
