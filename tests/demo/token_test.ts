import assert from "node:assert/strict";
import { operatorToken } from "../../lib/demo/site.ts";
import { sha256Hex } from "../../lib/sites/keys.ts";

Deno.test("operator token - generated once, returned once, kept only as its SHA-256 hash", async () => {
  const kv = await Deno.openKv(":memory:");
  const first = await operatorToken(kv, undefined);
  assert.match(first.created!, /^op_[0-9A-Za-z]{32}$/);
  assert.equal(first.hash, await sha256Hex(first.created!));
  const second = await operatorToken(kv, undefined);
  assert.deepEqual(second, { hash: first.hash, created: null });
  for await (const e of kv.list({ prefix: [] })) {
    assert.ok(!JSON.stringify(e.value).includes(first.created!), "the token itself is not stored");
  }
  kv.close();
});

Deno.test("operator token - the environment's wins, production never generates one, a plain legacy token becomes a hash", async () => {
  const kv = await Deno.openKv(":memory:");
  assert.deepEqual(await operatorToken(kv, "op_env"), {
    hash: await sha256Hex("op_env"),
    created: null,
  });
  assert.deepEqual(await operatorToken(kv, undefined, false), { hash: null, created: null });
  await kv.set(["config", "operatorToken"], "op_legacy_plain");
  const migrated = await operatorToken(kv, undefined, false);
  assert.deepEqual(migrated, { hash: await sha256Hex("op_legacy_plain"), created: null });
  assert.equal((await kv.get(["config", "operatorToken"])).value, null);
  kv.close();
});
