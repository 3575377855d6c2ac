/**
 * The crawler never reaches what it must not. Every target here is on loopback:
 * no private or link-local address is ever a fetch target, and no host name is
 * ever handed to the system resolver (the nameserver may itself be internal).
 */
import assert from "node:assert/strict";
import { GuardedFetcher } from "../../../lib/crawl/net/fetch.ts";
import { admin, createSite, startApp } from "../../helpers.ts";
import { html, serveSite } from "../../fixtures/crawl_site.ts";

const noDns = (host: string) => Promise.reject(new Error(`no DNS in tests (${host})`));

Deno.test("crawl ssrf - with loopback off, every scheme and spelling of a local target is refused and nothing is fetched", async () => {
  const fx = serveSite(new Map([["/", html("Home", "<p>Hi</p>")]]));
  const p = fx.port;
  const t = await startApp({ crawl: { allowLoopback: false, delayMs: 0, resolve: noDns } });
  const site = await createSite(t, "business");
  const targets = [
    "file:///etc/passwd",
    `data:text/html,<a href="http://127.0.0.1:${p}/">x</a>`,
    `http://127.0.0.1:${p}/`,
    `https://127.0.0.1:${p}/`,
    `http://[::1]:${p}/`,
    `http://[0:0:0:0:0:0:0:1]:${p}/`,
    `http://localhost:${p}/`,
    `http://LOCALHOST.:${p}/`,
    `http://app.localhost:${p}/`,
    `http://0x7f000001:${p}/`,
    `http://2130706433:${p}/`,
    `http://0177.0.0.1:${p}/`,
    `http://127.1:${p}/`,
    `http://127.0.0.1.:${p}/`,
    `http://[::ffff:127.0.0.1]:${p}/`,
    `http://[::ffff:7f00:1]:${p}/`,
    `http://0.0.0.0:${p}/`,
    `http://[::]:${p}/`,
  ];
  for (const url of targets) {
    const res = await t.call(`/api/admin/sites/${site.id}/crawl`, admin(site.adminKey, { url }));
    const body = await res.json();
    assert.equal(res.status, 400, url);
    assert.equal(body.error.code, "INVALID_PARAMETER", url);
    assert.equal(body.error.param, "url", url);
    assert.match(body.error.message, /http or https|internal network address|loopback/, url);
    // Every spelling of loopback is refused naming the setting that would allow it.
    if (url.startsWith("http") && !/\/\/(0\.0\.0\.0|\[::\])/.test(url)) {
      assert.match(body.error.message, /CRAWL_ALLOW_LOOPBACK=true/, url);
    }
  }
  // The library path the CLI uses refuses the same way, and so does the fetcher itself.
  const fetcher = new GuardedFetcher({
    allowLoopback: false,
    resolve: noDns,
    userAgent: "test",
    concurrency: 1,
    delayMs: 0,
  });
  for (const url of targets) {
    const res = await fetcher.fetch(url);
    assert.equal(res.ok, false, url);
    if (!res.ok) assert.equal(res.reason, "blocked_address", url);
  }
  await fetcher.close();
  const jobs = await (await t.call(`/api/admin/sites/${site.id}/crawl`, admin(site.adminKey)))
    .json();
  assert.deepEqual(jobs.jobs, []);
  assert.equal(fx.requests.length, 0);
  t.close();
  await fx.close();
});

Deno.test("crawl ssrf - with loopback on, a redirect to 0.0.0.0, [::], file: or data: is refused at that hop", async () => {
  const fx = serveSite();
  const p = fx.port;
  const targets: Record<string, string> = {
    "/to-zero": `http://0.0.0.0:${p}/`,
    "/to-any6": `http://[::]:${p}/`,
    "/to-file": "file:///etc/passwd",
    "/to-data": "data:text/html,<p>hi</p>",
  };
  const links = Object.keys(targets).map((k) => `<a href="${k}">${k}</a>`).join(" ");
  fx.routes.set("/", html("Home", `<p>${links}</p>`));
  for (const [path, location] of Object.entries(targets)) {
    fx.routes.set(path, { status: 302, headers: { Location: location } });
  }
  const t = await startApp({ crawl: { allowLoopback: true, delayMs: 0, resolve: noDns } });
  const site = await createSite(t, "pro");
  const res = await t.call(
    `/api/admin/sites/${site.id}/crawl`,
    admin(site.adminKey, { url: `${fx.origin}/` }),
  );
  assert.equal(res.status, 202);
  const { job: started } = await res.json();
  let job;
  do {
    await new Promise((r) => setTimeout(r, 20));
    const got = await t.call(
      `/api/admin/sites/${site.id}/crawl/${started.id}`,
      admin(site.adminKey),
    );
    job = await got.json();
  } while (job.status === "running" || job.status === "queued");

  assert.equal(job.status, "done");
  const skipped = job.skipped.map((i: { url: string; reason: string }) => [
    i.url.replace(fx.origin, ""),
    i.reason,
  ]).sort();
  assert.deepEqual(skipped, [
    ["/to-any6", "blocked_address"],
    ["/to-data", "blocked_address"],
    ["/to-file", "blocked_address"],
    ["/to-zero", "blocked_address"],
  ]);
  // Only the 127.0.0.1 spelling ever arrived; the refused hops never went out.
  assert.ok(fx.requests.every((r) => r.host === `127.0.0.1:${p}`));
  assert.deepEqual(
    fx.paths().sort(),
    ["/", "/about", "/robots.txt", "/to-any6", "/to-data", "/to-file", "/to-zero"],
  );
  t.close();
  await fx.close();
});

/** A host name /etc/hosts maps to loopback (resolved without DNS), other than localhost. */
async function hostsFileName(): Promise<{ name: string; address: string } | null> {
  const text = await Deno.readTextFile("/etc/hosts").catch(() => "");
  for (const line of text.split("\n")) {
    const [address, ...names] = line.replace(/#.*/, "").trim().split(/\s+/);
    if (!address || !/^(127\.|::1$)/.test(address)) continue;
    const name = names.find((n) => n && !/(^|\.)localhost\.?$/i.test(n));
    if (name) return { name, address };
  }
  return null;
}

const named = await hostsFileName();

Deno.test({
  name: "crawl ssrf - the connection goes to the address that was checked, not to a fresh lookup",
  // Needs a name that even a broken pin would resolve from /etc/hosts, never through DNS.
  ignore: named === null,
  async fn() {
    const { name, address } = named!;
    // Serve on a loopback address the hosts file does not give for this name.
    const hostname = address === "127.0.0.2" ? "127.0.0.3" : "127.0.0.2";
    const seen: string[] = [];
    const server = Deno.serve({ hostname, port: 0, onListen() {} }, (req) => {
      seen.push(req.headers.get("host") ?? "");
      return new Response("pinned");
    });
    const asked: string[] = [];
    const fetcher = new GuardedFetcher({
      allowLoopback: true,
      resolve: (host) => (asked.push(host), Promise.resolve([hostname])),
      userAgent: "test",
      concurrency: 1,
      delayMs: 0,
    });
    const url = `http://${name}:${server.addr.port}/`;
    const res = await fetcher.fetch(url);
    assert.ok(res.ok && res.status === 200, JSON.stringify(res));
    assert.equal(new TextDecoder().decode(res.body), "pinned");
    assert.deepEqual(seen, [`${name}:${server.addr.port}`]);
    assert.deepEqual(asked, [name]);
    await fetcher.close();
    await server.shutdown();
  },
});

Deno.test("crawl ssrf - https is TLS on a socket to the checked address, end to end", async () => {
  const dir = new URL("../../fixtures/tls/", import.meta.url);
  const read = (f: string) => Deno.readTextFile(new URL(f, dir));
  const server: Deno.HttpServer<Deno.NetAddr> = Deno.serve(
    {
      hostname: "127.0.0.2",
      port: 0,
      cert: await read("cert.pem"),
      key: await read("key.pem"),
      onListen() {},
    },
    (req): Response =>
      new URL(req.url).pathname === "/hop"
        ? Response.redirect(`https://127.0.0.2:${server.addr.port}/end`, 302)
        : new Response("over tls"),
  );
  const fetcher = new GuardedFetcher({
    allowLoopback: true,
    resolve: noDns,
    userAgent: "test",
    concurrency: 1,
    delayMs: 0,
    caCerts: [await read("ca.pem")],
  });
  const res = await fetcher.fetch(`https://127.0.0.2:${server.addr.port}/hop`);
  assert.ok(res.ok, JSON.stringify(res));
  assert.equal(res.url, `https://127.0.0.2:${server.addr.port}/end`);
  assert.equal(new TextDecoder().decode(res.body), "over tls");
  await fetcher.close();
  await server.shutdown();
});

Deno.test("crawl ssrf - bodies are capped after decompression and redirects after five hops", async () => {
  const zeros = new Uint8Array(20 * 1024 * 1024);
  const bomb = new Uint8Array(
    await new Response(new Blob([zeros]).stream().pipeThrough(new CompressionStream("gzip")))
      .arrayBuffer(),
  );
  const fx = serveSite(
    new Map([
      ["/bomb", {
        headers: { "Content-Encoding": "gzip", "Content-Type": "text/html" },
        body: bomb,
      }],
      ...Array.from({ length: 7 }, (_, i) =>
        [
          `/r${i}`,
          { status: 301, headers: { Location: `/r${i + 1}` } },
        ] as const),
      ["/r7", html("End", "<p>end</p>")],
    ]),
  );
  const fetcher = new GuardedFetcher({
    allowLoopback: true,
    resolve: noDns,
    userAgent: "test",
    concurrency: 1,
    delayMs: 0,
  });
  assert.ok(bomb.length < 100_000);
  const big = await fetcher.fetch(`${fx.origin}/bomb`, { maxBytes: 1024 * 1024 });
  assert.deepEqual([big.ok, !big.ok && big.reason], [false, "too_large"]);
  const five = await fetcher.fetch(`${fx.origin}/r2`);
  assert.ok(five.ok && five.url === `${fx.origin}/r7`);
  const six = await fetcher.fetch(`${fx.origin}/r1`);
  assert.deepEqual([six.ok, !six.ok && six.reason], [false, "redirect_limit"]);
  await fetcher.close();
  await fx.close();
});

Deno.test("crawl ssrf - with loopback on, 127.0.0.0/8 and [::1] are reachable, pinned", async () => {
  const servers = ["127.0.0.2", "::1"].map((hostname) =>
    Deno.serve({ hostname, port: 0, onListen() {} }, () => new Response(`hello from ${hostname}`))
  );
  const fetcher = new GuardedFetcher({
    allowLoopback: true,
    resolve: noDns,
    userAgent: "test",
    concurrency: 1,
    delayMs: 0,
  });
  for (const [i, host] of ["127.0.0.2", "[::1]"].entries()) {
    const res = await fetcher.fetch(`http://${host}:${servers[i].addr.port}/`);
    assert.ok(res.ok && res.status === 200, JSON.stringify(res));
    assert.equal(new TextDecoder().decode(res.body), `hello from ${host.replace(/[[\]]/g, "")}`);
  }
  await fetcher.close();
  for (const s of servers) await s.shutdown();
});
