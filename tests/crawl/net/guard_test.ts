import assert from "node:assert/strict";
import {
  type AddressClass,
  checkUrl,
  classifyIp,
  isAddressAllowed,
  normalizeHost,
} from "../../../lib/crawl/net/guard.ts";

// Nothing here touches the network: literals are classified, names go to fake resolvers.
const noDns = (host: string): Promise<string[]> => {
  throw new Error(`unexpected DNS lookup of ${host}`);
};
const fakeDns = (table: Record<string, string[]>) => (host: string) =>
  host in table ? Promise.resolve(table[host]) : Promise.reject(new Error("NXDOMAIN"));

const CASES: [string, AddressClass][] = [
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "unspecified"],
  ["10.0.0.1", "private"],
  ["10.255.255.255", "private"],
  ["100.64.0.1", "cgnat"],
  ["100.127.255.255", "cgnat"],
  ["100.128.0.1", "public"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["169.254.0.1", "link_local"],
  ["169.254.169.254", "link_local"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["172.32.0.1", "public"],
  ["192.0.0.8", "reserved"],
  ["192.0.2.1", "documentation"],
  ["192.88.99.1", "reserved"],
  ["192.168.1.1", "private"],
  ["198.18.0.1", "benchmarking"],
  ["198.19.255.255", "benchmarking"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.9", "documentation"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.254", "reserved"],
  ["255.255.255.255", "broadcast"],
  ["93.184.216.34", "public"],
  ["8.8.8.8", "public"],
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["[::1]", "loopback"],
  ["fc00::1", "unique_local"],
  ["fd12:3456::1", "unique_local"],
  ["fe80::1", "link_local"],
  ["fe80::1%eth0", "link_local"],
  ["febf::1", "link_local"],
  ["ff02::1", "multicast"],
  ["2001:db8::1", "documentation"],
  ["3fff::1", "documentation"],
  ["2001:2::1", "benchmarking"],
  ["2001::1", "reserved"], // Teredo
  ["100::1", "reserved"], // discard-only
  ["fec0::1", "reserved"], // deprecated site-local
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["0:0:0:0:0:ffff:7f00:1", "loopback"],
  ["::ffff:10.0.0.1", "private"],
  ["::ffff:169.254.169.254", "link_local"],
  ["::ffff:0:0", "unspecified"],
  ["::ffff:93.184.216.34", "public"],
  ["::127.0.0.1", "loopback"], // IPv4-compatible (deprecated)
  ["::10.0.0.1", "private"],
  ["64:ff9b::7f00:1", "loopback"],
  ["64:ff9b::192.168.0.1", "private"],
  ["64:ff9b::5db8:d822", "public"],
  ["64:ff9b:1::1", "reserved"], // local-use NAT64
  ["2002:7f00:1::", "loopback"],
  ["2002:a9fe:a9fe::1", "link_local"],
  ["2002:5db8:d822::1", "public"],
  ["2606:4700::1", "public"],
  ["2a00:1450:4001::200e", "public"],
];

Deno.test("net_guard - classifies every special-purpose range and public addresses", () => {
  for (const [ip, want] of CASES) assert.equal(classifyIp(ip), want, ip);
});

Deno.test("net_guard - treats anything unparsable as reserved", () => {
  for (
    const bad of [
      "",
      "example.com",
      "127.1",
      "0177.0.0.1",
      "1.2.3.256",
      "1::2::3",
      "12345::",
      "1:2:3:4:5:6:7:8:9",
      ":1",
    ]
  ) {
    assert.equal(classifyIp(bad), "reserved", bad);
    assert.equal(isAddressAllowed(bad, { allowLoopback: true }), false, bad);
  }
});

Deno.test("net_guard - allows only public addresses, plus loopback when asked", () => {
  assert.equal(isAddressAllowed("93.184.216.34", { allowLoopback: false }), true);
  assert.equal(isAddressAllowed("2606:4700::1", { allowLoopback: false }), true);
  for (const ip of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"]) {
    assert.equal(isAddressAllowed(ip, { allowLoopback: false }), false, ip);
    assert.equal(isAddressAllowed(ip, { allowLoopback: true }), true, ip);
  }
  for (const ip of ["0.0.0.0", "::", "10.0.0.1", "169.254.169.254", "fe80::1", "fd00::1"]) {
    assert.equal(isAddressAllowed(ip, { allowLoopback: true }), false, ip);
  }
});

Deno.test("net_guard - normalizes hostnames by stripping brackets, case and trailing dots", () => {
  assert.equal(normalizeHost("[::1]"), "::1");
  assert.equal(normalizeHost("Example.COM."), "example.com");
  assert.equal(normalizeHost("localhost.."), "localhost");
});

const LOOPBACK_SPELLINGS = [
  "http://127.0.0.1/",
  "http://127.0.0.1./",
  "http://0x7f000001/",
  "http://2130706433/",
  "http://0177.0.0.1/",
  "http://127.1/",
  "http://%31%32%37.0.0.1/",
  "http://[::1]/",
  "http://[::ffff:127.0.0.1]/",
  "http://[0:0:0:0:0:ffff:7f00:1]/",
  "http://localhost:8080/",
  "http://LOCALHOST./",
  "http://api.localhost/",
];
const NEVER_ALLOWED = [
  "http://0.0.0.0/",
  "http://0/",
  "http://[::]/",
  "http://10.0.0.1/",
  "http://169.254.169.254/latest/meta-data/",
  "http://[fe80::1]/",
  "http://[fd00::1]/",
  "http://[64:ff9b::a9fe:a9fe]/",
  "http://[2002:a00:1::]/",
  "http://255.255.255.255/",
];

Deno.test("net_guard - refuses every loopback spelling unless loopback is allowed", async () => {
  for (const url of LOOPBACK_SPELLINGS) {
    const off = await checkUrl(url, { allowLoopback: false, resolve: noDns });
    // Named as loopback, so the refusal can point at CRAWL_ALLOW_LOOPBACK.
    assert.deepEqual(off, { ok: false, reason: "blocked_address", blocked: "loopback" }, url);
    const on = await checkUrl(url, { allowLoopback: true, resolve: noDns });
    assert.equal(on.ok, true, url);
  }
});

Deno.test("net_guard - refuses unspecified and internal addresses even with loopback allowed", async () => {
  for (const url of NEVER_ALLOWED) {
    for (const allowLoopback of [false, true]) {
      const r = await checkUrl(url, { allowLoopback, resolve: noDns });
      assert.ok(!r.ok && r.reason === "blocked_address", `${url} ${allowLoopback}`);
      assert.notEqual(r.blocked, "loopback", url);
    }
  }
});

Deno.test("net_guard - accepts public IP literals without a DNS lookup", async () => {
  const v4 = await checkUrl("https://93.184.216.34/a?b=c", {
    allowLoopback: false,
    resolve: noDns,
  });
  assert.ok(v4.ok);
  assert.deepEqual(v4.addresses, ["93.184.216.34"]);
  assert.equal(v4.url.pathname, "/a");
  const v6 = await checkUrl("http://[2606:4700::1]:8080/", {
    allowLoopback: false,
    resolve: noDns,
  });
  assert.ok(v6.ok);
  assert.deepEqual(v6.addresses, ["2606:4700::1"]);
});

Deno.test("net_guard - refuses schemes other than http and https", async () => {
  for (
    const url of [
      "file:///etc/passwd",
      "data:text/html,hi",
      "ftp://93.184.216.34/",
      "javascript:alert(1)",
      "gopher://93.184.216.34/",
    ]
  ) {
    const r = await checkUrl(url, { allowLoopback: true, resolve: noDns });
    assert.deepEqual(r, { ok: false, reason: "blocked_scheme" }, url);
  }
});

Deno.test("net_guard - refuses unparsable URLs and URLs with credentials", async () => {
  for (
    const url of [
      "not a url",
      "http://",
      "http://1.2.3.4.5/",
      "https://user:pw@93.184.216.34/",
      "https://user@example.com/",
    ]
  ) {
    const r = await checkUrl(url, { allowLoopback: true, resolve: noDns });
    assert.deepEqual(r, { ok: false, reason: "invalid_url" }, url);
  }
});

Deno.test("net_guard - resolves names and requires every address to be allowed", async () => {
  const resolve = fakeDns({
    "good.example": ["93.184.216.34", "2606:4700::1"],
    "mixed.example": ["93.184.216.34", "10.0.0.5"],
    "metadata.example": ["169.254.169.254"],
    "mapped.example": ["::ffff:127.0.0.1"],
    "loop.example": ["127.0.0.1"],
    "garbage.example": ["not-an-ip"],
    "empty.example": [],
  });
  const good = await checkUrl("https://Good.Example./page", { allowLoopback: false, resolve });
  assert.ok(good.ok);
  assert.deepEqual(good.addresses, ["93.184.216.34", "2606:4700::1"]);
  for (const host of ["mixed", "metadata", "garbage"]) {
    const r = await checkUrl(`https://${host}.example/`, { allowLoopback: true, resolve });
    assert.ok(!r.ok && r.reason === "blocked_address", host);
  }
  // A name that resolves to loopback (in any form) counts as loopback, nothing more.
  for (const host of ["loop", "mapped"]) {
    const url = `http://${host}.example/`;
    assert.equal((await checkUrl(url, { allowLoopback: false, resolve })).ok, false, host);
    assert.equal((await checkUrl(url, { allowLoopback: true, resolve })).ok, true, host);
  }
  for (const host of ["empty", "missing"]) {
    const r = await checkUrl(`https://${host}.example/`, { allowLoopback: true, resolve });
    assert.deepEqual(r, { ok: false, reason: "dns_error" }, host);
  }
});

Deno.test("net_guard - asks the resolver for the normalized host name", async () => {
  const asked: string[] = [];
  const resolve = (host: string) => {
    asked.push(host);
    return Promise.resolve(["93.184.216.34"]);
  };
  await checkUrl("https://WWW.Example.COM./x", { allowLoopback: false, resolve });
  assert.deepEqual(asked, ["www.example.com"]);
});
