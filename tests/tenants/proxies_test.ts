/**
 * Behind a proxy every visitor would be one address: TRUSTED_PROXIES names the proxies whose
 * X-Forwarded-For is believed (its last hop that is not a trusted proxy), for every
 * per-address limit. Without it the header is never read.
 */
import assert from "node:assert/strict";
import { addressBytes, clientAddress, parseTrustedProxies } from "../../lib/http/proxies.ts";
import { startMain } from "../fixtures/instance.ts";
import { clearOfMinuteEdge } from "../fixtures/minute_edge.ts";

Deno.test("proxies - CIDR blocks of IPv4 and IPv6 are parsed and matched; a bad entry is named", () => {
  const trusted = parseTrustedProxies("10.0.0.0/8, 192.168.1.7 2001:db8::/32,::1");
  assert.ok(trusted("10.200.3.4"));
  assert.ok(!trusted("11.0.0.1"));
  assert.ok(trusted("192.168.1.7") && !trusted("192.168.1.8"));
  assert.ok(trusted("2001:db8:1::5") && !trusted("2001:db9::5"));
  assert.ok(trusted("::1") && trusted("::ffff:10.1.1.1"), "IPv4-mapped counts as IPv4");
  assert.ok(!trusted("not an address"));
  for (
    const bad of ["10.0.0.0/33", "300.1.1.1", "2001:db8::/129", "10.0.0.0/8/1", "host.example"]
  ) {
    assert.throws(() => parseTrustedProxies(bad), new RegExp(bad.replace(/[./]/g, "\\$&")));
  }
  assert.deepEqual([...addressBytes("::")!], Array(16).fill(0));
  assert.equal(addressBytes("1::2::3"), null);
});

Deno.test("proxies - the client is the last hop not a trusted proxy; without the list or from an untrusted peer, the peer", () => {
  const trusted = parseTrustedProxies("10.0.0.0/8");
  // A client that writes its own X-Forwarded-For cannot choose its address.
  assert.equal(clientAddress("10.0.0.2", "6.6.6.6, 203.0.113.9", trusted), "203.0.113.9");
  assert.equal(clientAddress("10.0.0.2", "203.0.113.9, 10.0.0.5", trusted), "203.0.113.9");
  assert.equal(clientAddress("10.0.0.2", "[2001:db8::7]:443", trusted), "2001:db8::7");
  assert.equal(clientAddress("10.0.0.2", "198.51.100.4:5555", trusted), "198.51.100.4");
  assert.equal(clientAddress("10.0.0.2", "garbage", trusted), "10.0.0.2");
  assert.equal(clientAddress("10.0.0.2", null, trusted), "10.0.0.2");
  assert.equal(clientAddress("203.0.113.1", "6.6.6.6", trusted), "203.0.113.1", "untrusted peer");
  assert.equal(clientAddress("10.0.0.2", "6.6.6.6", null), "10.0.0.2", "no list: never read");
});

/** Three answers from "visitors" behind one proxy on 127.0.0.1, two a minute per address. */
async function answersFrom(env: Record<string, string>) {
  const dir = await Deno.makeTempDir();
  const inst = await startMain({
    KV_PATH: `${dir}/kv.sqlite`,
    SUMMARY_IP_LIMIT_PER_MINUTE: "2",
    ...env,
  });
  try {
    const ask = async (visitor: string) => {
      const res = await fetch(`${inst.url}/api/summarize`, {
        method: "POST",
        headers: {
          "X-API-Key": inst.publicKey,
          "Content-Type": "application/json",
          "X-Forwarded-For": visitor,
        },
        body: JSON.stringify({ query: "How long does shipping take?" }),
      });
      await res.body?.cancel();
      return res.status;
    };
    await clearOfMinuteEdge();
    const one = [await ask("203.0.113.1"), await ask("203.0.113.1"), await ask("203.0.113.1")];
    const other = await ask("203.0.113.2");
    return { one, other };
  } finally {
    await inst.stop();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("proxies - with TRUSTED_PROXIES each forwarded visitor has its own limit; without it, X-Forwarded-For is ignored", async () => {
  const behind = await answersFrom({ TRUSTED_PROXIES: "127.0.0.0/8" });
  assert.deepEqual(behind.one, [200, 200, 429], "one visitor's limit");
  assert.equal(behind.other, 200, "another visitor behind the same proxy is served");
  const direct = await answersFrom({});
  assert.deepEqual(direct.one, [200, 200, 429]);
  assert.equal(direct.other, 429, "a forged X-Forwarded-For buys no new address");
});

Deno.test("proxies - a TRUSTED_PROXIES entry that does not parse stops the start, naming it", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    cwd: new URL("../../", import.meta.url),
    env: { TRUSTED_PROXIES: "10.0.0.0/8, 10.0.0.0/99", KV_PATH: ":memory:", PORT: "0" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 1);
  assert.match(new TextDecoder().decode(out.stderr), /"10\.0\.0\.0\/99" is not an IP address/);
});
