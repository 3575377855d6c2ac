/**
 * Guessing a key is slowed per address: ten wrong admin tokens or failed dashboard sign-ins a
 * minute, then 429 SIGN_IN_RATE_LIMIT_EXCEEDED for that address alone, before any token is read.
 */
import assert from "node:assert/strict";
import { startMain } from "../fixtures/instance.ts";
import { clearOfMinuteEdge } from "../fixtures/minute_edge.ts";

Deno.test("sign-in - ten wrong admin tokens a minute from one address, then 429 for it alone; the dashboard form too", async () => {
  const dir = await Deno.makeTempDir();
  const inst = await startMain({ KV_PATH: `${dir}/kv.sqlite`, TRUSTED_PROXIES: "127.0.0.0/8" });
  try {
    const call = async (token: string, visitor: string) => {
      const res = await fetch(`${inst.url}/api/admin/sites`, {
        headers: { Authorization: `Bearer ${token}`, "X-Forwarded-For": visitor },
      });
      const body = await res.json();
      return { status: res.status, code: body.error?.code, retry: res.headers.get("retry-after") };
    };
    await clearOfMinuteEdge();
    for (let i = 0; i < 10; i++) {
      assert.equal((await call(`sk_${"x".repeat(32)}`, "203.0.113.5")).status, 401, `try ${i + 1}`);
    }
    const over = await call(inst.operator, "203.0.113.5");
    assert.equal(over.status, 429, "even the right token waits: it is not looked at");
    assert.equal(over.code, "SIGN_IN_RATE_LIMIT_EXCEEDED");
    assert.ok(Number(over.retry) > 0);
    assert.equal(
      (await call(inst.operator, "203.0.113.6")).status,
      200,
      "another address is served",
    );

    const signIn = async (key: string, visitor: string) => {
      const res = await fetch(`${inst.url}/dashboard/session`, {
        method: "POST",
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          Origin: inst.url,
          "X-Forwarded-For": visitor,
        },
        body: new URLSearchParams({ key }),
        redirect: "manual",
      });
      return { status: res.status, page: await res.text() };
    };
    await clearOfMinuteEdge();
    for (let i = 0; i < 10; i++) {
      assert.equal((await signIn("op_guess", "198.51.100.7")).status, 401);
    }
    const page = await signIn(inst.operator, "198.51.100.7");
    assert.equal(page.status, 429);
    assert.match(page.page, /failed sign-ins a minute from one visitor/);
    assert.equal(
      (await signIn(inst.operator, "198.51.100.8")).status,
      303,
      "another address signs in",
    );
  } finally {
    await inst.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
