import assert from "node:assert/strict";

/** Runs `main.ts` as `deno task start` would, until it prints its URL and keys. */
async function start(env: Record<string, string>) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "main.ts"],
    env: { ...env, PORT: "0", HOSTNAME: "127.0.0.1", OPENAI_API_KEY: "" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!/try:\s+curl/.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error("main.ts exited: " + out);
    out += value;
  }
  const field = (name: string) => new RegExp(`${name}:\\s+(\\S+)`).exec(out)?.[1] ?? "";
  const stop = async () => {
    child.kill("SIGTERM");
    await reader.cancel();
    await child.stderr.cancel();
    await child.status;
  };
  return {
    out,
    url: /running at (\S+)/.exec(out)![1],
    publicKey: field("public key"),
    adminKey: field("admin key"),
    operator: field("operator token"),
    stop,
  };
}

Deno.test("start - creates the demo site on first run, prints its keys, and keeps everything on restart", async () => {
  const dir = await Deno.makeTempDir();
  const env = { KV_PATH: `${dir}/kv/sitesearch.kv` };
  const first = await start(env);
  assert.match(first.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.match(first.publicKey, /^pk_/);
  assert.match(first.adminKey, /^sk_/);
  assert.match(first.operator, /^op_/);
  assert.match(first.out, /created now/);
  const res = await fetch(`${first.url}/api/search?q=shipping&key=${first.publicKey}`);
  const body = await res.json();
  assert.equal(res.status, 200);
  assert.ok(body.meta.found > 0);
  assert.equal(body.meta.performance_tier, "business");
  const pages = await (await fetch(`${first.url}/api/admin/sites`, {
    headers: { Authorization: `Bearer ${first.operator}` },
  })).json();
  assert.equal(pages.sites.length, 1);
  await first.stop();

  const second = await start(env);
  assert.match(second.out, /kept from last run/);
  assert.equal(second.publicKey, first.publicKey);
  assert.equal(second.operator, first.operator, "the generated operator token persists");
  const again = await (await fetch(`${second.url}/api/search?q=shipping&key=${second.publicKey}`))
    .json();
  assert.equal(again.meta.found, body.meta.found);
  await second.stop();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("start - SITESEARCH_OPERATOR_TOKEN is used when set, and never printed", async () => {
  const dir = await Deno.makeTempDir();
  const run = await start({ KV_PATH: `${dir}/s.kv`, SITESEARCH_OPERATOR_TOKEN: "op_from_env_123" });
  assert.ok(!run.out.includes("op_from_env_123"), "the banner does not print the token");
  assert.match(run.out, /operator token:\s+\(from SITESEARCH_OPERATOR_TOKEN/);
  const res = await fetch(`${run.url}/api/admin/sites`, {
    headers: { Authorization: "Bearer op_from_env_123" },
  });
  assert.equal(res.status, 200);
  await res.body?.cancel();
  await run.stop();
  await Deno.remove(dir, { recursive: true });
});
