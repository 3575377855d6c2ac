/** Storage under faults: two main.ts processes on one KV file, and a KV file frozen or deleted. */
import assert from "node:assert/strict";
import { type Instance, startMain } from "../fixtures/instance.ts";

const TOKEN = "op_storage_test_token";

async function call(inst: Instance, path: string, method = "GET", body?: unknown) {
  const res = await fetch(inst.url + path, {
    method,
    headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : null };
}

/** Two instances on one fresh KV file, started at the same moment or one after the other. */
async function twoInstances(together = false) {
  const dir = await Deno.makeTempDir();
  const env = { KV_PATH: `${dir}/shared.kv` };
  const start = () => startMain(env, { operatorToken: TOKEN });
  const [a, b] = together ? await Promise.all([start(), start()]) : [await start(), await start()];
  return {
    a,
    b,
    dir,
    async close() {
      await a.stop();
      await b.stop();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("storage - two instances started together on a fresh KV are both up, with one demo site", async () => {
  const { a, b, close } = await twoInstances(true);
  assert.equal(a.publicKey, b.publicKey, "both print the same demo site");
  const sites = await call(a, "/api/admin/sites");
  assert.equal(sites.json.sites.length, 1);
  for (const inst of [a, b]) {
    const res = await fetch(`${inst.url}/api/search?q=shipping&key=${inst.publicKey}`);
    assert.equal(res.status, 200);
    await res.body?.cancel();
  }
  await close();
});

Deno.test("storage - two instances on one KV file: concurrent upserts and deletes all succeed, none lost", async () => {
  const { a, b, close } = await twoInstances();
  const created = await call(a, "/api/admin/sites", "POST", { name: "Shared", plan: "business" });
  assert.equal(created.status, 201);
  const id = created.json.site.id;
  const n = 80;
  const statuses: number[] = [];
  const run = async (jobs: (() => Promise<number>)[], width: number) => {
    const queue = [...jobs];
    await Promise.all(Array.from({ length: width }, async () => {
      for (let job; (job = queue.shift());) statuses.push(await job());
    }));
  };
  await run(
    Array.from(
      { length: n },
      (_, i) => async () =>
        (await call(i % 2 ? a : b, `/api/admin/sites/${id}/pages`, "PUT", {
          pages: [{ url: `/p${i}`, title: `Page ${i}`, body: `words ${i} `.repeat(200) }],
        })).status,
    ),
    16,
  );
  await run(
    Array.from(
      { length: n / 2 },
      (_, i) => async () =>
        (await call(i % 2 ? b : a, `/api/admin/sites/${id}/pages?url=/p${2 * i}`, "DELETE"))
          .status,
    ),
    16,
  );
  assert.deepEqual(statuses.filter((s) => s !== 200), [], "every write answered 200");
  for (const inst of [a, b]) {
    const list = await call(inst, `/api/admin/sites/${id}/pages?limit=1000`);
    const urls = list.json.pages.map((p: { url: string }) => p.url).sort();
    const expected = Array.from({ length: n / 2 }, (_, i) => `/p${2 * i + 1}`).sort();
    assert.deepEqual(urls, expected, "deleted pages are gone, the others stay");
  }
  await close();
});

Deno.test("storage - two instances, one site at its AI-credit limit: no 503, and exactly the limit answered", async () => {
  const { a, b, close } = await twoInstances();
  const sites = await call(a, "/api/admin/sites");
  const id = sites.json.sites[0].id;
  const limit = 20;
  const patched = await call(a, `/api/admin/sites/${id}`, "PATCH", {
    limits: { aiCreditsPerMonth: limit },
  });
  assert.equal(patched.status, 200);
  await new Promise((r) => setTimeout(r, 2100)); // both instances' key caches see the change
  // Page writes on both instances meanwhile, so the two processes contend for the file's lock.
  let writing = true;
  const writers = [a, b].map(async (inst, w) => {
    for (let i = 0; writing; i++) {
      await call(inst, `/api/admin/sites/${id}/pages`, "PUT", {
        pages: [{ url: `/busy/${w}/${i % 5}`, title: "Busy", body: `round ${i} `.repeat(500) }],
      });
    }
  });
  const results = await Promise.all(Array.from({ length: 40 }, async (_, i) => {
    const inst = i % 2 ? a : b;
    const res = await fetch(`${inst.url}/api/summarize?key=${inst.publicKey}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Forwarded-For": `10.0.0.${i}` },
      body: JSON.stringify({ query: `how long does shipping take ${i}` }),
    });
    const body = await res.json();
    // A question nothing matches is answered free (sources: []); only cited answers cost.
    return res.status === 200 && body.sources.length === 0 ? "free" : res.status;
  }));
  writing = false;
  await Promise.all(writers);
  assert.ok(!results.includes(503), JSON.stringify(results));
  const charged = results.filter((s) => s === 200).length;
  assert.equal(charged, limit, JSON.stringify(results));
  assert.equal(
    results.filter((s) => s === 429).length + charged + results.filter((s) => s === "free").length,
    40,
  );
  const usage = await call(a, `/api/admin/sites/${id}/usage`);
  assert.equal(usage.json.aiCredits.used, limit, JSON.stringify(usage.json));
  await close();
});

/** Whether `chattr +i` works here (root on a file system that supports it). */
async function canFreeze(): Promise<boolean> {
  const file = await Deno.makeTempFile();
  try {
    const ok = (await new Deno.Command("chattr", { args: ["+i", file], stderr: "null" }).output())
      .success;
    if (ok) await new Deno.Command("chattr", { args: ["-i", file] }).output();
    return ok;
  } catch {
    return false;
  } finally {
    await Deno.remove(file).catch(() => {});
  }
}

const chattr = async (flag: string, files: string[]) => {
  const present = [];
  for (const f of files) if (await Deno.stat(f).then(() => true, () => false)) present.push(f);
  await new Deno.Command("chattr", { args: [flag, ...present] }).output();
};

const upsert = (inst: Instance, id: string, url: string) =>
  call(inst, `/api/admin/sites/${id}/pages`, "PUT", {
    pages: [{ url, title: "Frozen", body: "text ".repeat(3000) }],
  });

Deno.test({
  name:
    "storage - a KV file made immutable while serving: writes answer 503 with Retry-After, the process lives",
  ignore: !(await canFreeze()),
  async fn() {
    const dir = await Deno.makeTempDir();
    const kvPath = `${dir}/frozen.kv`;
    const inst = await startMain({ KV_PATH: kvPath }, { operatorToken: TOKEN });
    const id = (await call(inst, "/api/admin/sites")).json.sites[0].id;
    const files = [kvPath, kvPath + "-wal", kvPath + "-shm"];
    await chattr("+i", files);
    try {
      for (let i = 0; i < 5; i++) {
        const res = await upsert(inst, id, `/frozen${i}`);
        assert.equal(res.status, 503);
        assert.equal(res.json.error.code, "SERVICE_UNAVAILABLE");
      }
      const site = await call(inst, `/api/admin/sites/${id}`, "PATCH", { name: "Renamed" });
      assert.equal(site.status, 503);
      assert.equal(site.headers.get("retry-after"), "5");
      assert.equal(site.json.error.code, "SERVICE_UNAVAILABLE");
      // Reads too: SQLite would touch the frozen shared-memory file and crash the process.
      for (let i = 0; i < 10; i++) {
        const search = await fetch(`${inst.url}/api/search?q=shipping&key=${inst.publicKey}`);
        assert.equal(search.status, 503);
        await search.body?.cancel();
        const pages = await call(inst, `/api/admin/sites/${id}/pages`);
        assert.equal(pages.status, 503);
      }
      await new Promise((r) => setTimeout(r, 1500));
      assert.ok(inst.alive(), "the process is still running");
      assert.match(inst.out(), /"event":"storage_unavailable"/);
    } finally {
      await chattr("-i", files);
    }
    // Checked again every second: writes work once the file is writable.
    let created = 0;
    for (let i = 0; i < 30 && !created; i++) {
      await new Promise((r) => setTimeout(r, 100));
      created = (await upsert(inst, id, "/thawed")).json.counts?.created ?? 0;
    }
    assert.equal(created, 1, "writes work again once the file is writable");
    assert.match(inst.out(), /"event":"storage_up"/);
    await inst.stop();
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test("storage - a KV file deleted while serving: writes answer 503 instead of vanishing", async () => {
  const dir = await Deno.makeTempDir();
  const kvPath = `${dir}/deleted.kv`;
  const inst = await startMain({ KV_PATH: kvPath }, { operatorToken: TOKEN });
  const id = (await call(inst, "/api/admin/sites")).json.sites[0].id;
  for (const f of [kvPath, kvPath + "-wal", kvPath + "-shm"]) await Deno.remove(f).catch(() => {});
  const res = await call(inst, `/api/admin/sites/${id}`, "PATCH", { name: "Gone" });
  assert.equal(res.status, 503);
  assert.equal(res.headers.get("retry-after"), "5");
  const page = await upsert(inst, id, "/lost");
  assert.equal(page.status, 503);
  assert.equal(page.headers.get("retry-after"), "5");
  assert.ok(inst.alive());
  await inst.stop();
  await Deno.remove(dir, { recursive: true });
});
