/**
 * Several app instances on one self-hosted denokv keep quotas exact. It needs the denokv
 * binary: npm publishes none (`npm view denokv` answers 404), so the test runs only where
 * DENOKV_BIN names one or `denokv` is on PATH (e.g. from the ghcr.io/denoland/denokv image).
 */
import assert from "node:assert/strict";
import { createApp } from "../../app.ts";
import { PLANS } from "../../lib/limits/plans.ts";
import { admin, OPERATOR } from "../helpers.ts";
import { clearOfMinuteEdge } from "../fixtures/minute_edge.ts";

function findDenokv(): string | null {
  const named = Deno.env.get("DENOKV_BIN");
  if (named) return named;
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if (Deno.statSync(`${dir}/denokv`).isFile) return `${dir}/denokv`;
    } catch {
      // not here
    }
  }
  return null;
}

const bin = findDenokv();

/** A free port on 127.0.0.1. */
function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

Deno.test({
  name: bin
    ? "denokv - two app instances on one denokv admit exactly the plan's searches a minute"
    : "denokv - two app instances on one denokv admit exactly the plan's searches a minute (skipped: no denokv binary; npm publishes none, set DENOKV_BIN)",
  ignore: bin === null,
  async fn() {
    const dir = await Deno.makeTempDir();
    const port = freePort();
    const token = "denokv-test-token-0123456789";
    const server = new Deno.Command(bin!, {
      args: [
        "--sqlite-path",
        `${dir}/kv.sqlite`,
        "serve",
        "--access-token",
        token,
        "--addr",
        `127.0.0.1:${port}`,
      ],
      stdout: "null",
      stderr: "null",
    }).spawn();
    Deno.env.set("DENO_KV_ACCESS_TOKEN", token);
    const url = `http://127.0.0.1:${port}`;
    let kvs: Deno.Kv[] = [];
    for (let i = 0; i < 100 && kvs.length === 0; i++) {
      try {
        const probe = await Deno.openKv(url);
        await probe.get(["probe"]);
        kvs = [probe, await Deno.openKv(url)];
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    try {
      assert.equal(kvs.length, 2, "denokv did not come up");
      const apps = kvs.map((kv) => createApp({ kv, operatorToken: OPERATOR, log: () => {} }).app);
      const call = (i: number, path: string, init?: RequestInit) =>
        Promise.resolve(apps[i % 2].fetch(new Request("http://127.0.0.1" + path, init)));
      const created =
        await (await call(0, "/api/admin/sites", admin(OPERATOR, { name: "Shared", plan: "free" })))
          .json();
      await call(1, `/api/admin/sites/${created.site.id}/pages`, {
        ...admin(created.adminKey, {
          pages: [{ url: "/a", title: "Kettles", body: "Copper kettles." }],
        }),
        method: "PUT",
      }).then((r) => r.body?.cancel());
      const limit = PLANS.free.perMinute;
      await clearOfMinuteEdge(); // the limits below count in one minute
      const statuses = await Promise.all(
        Array.from(
          { length: limit * 2 },
          (_, i) =>
            call(i, `/api/search?q=kettles&key=${created.publicKey}`).then(async (r) => {
              await r.body?.cancel();
              return r.status;
            }),
        ),
      );
      assert.equal(statuses.filter((s) => s === 200).length, limit);
      assert.equal(statuses.filter((s) => s === 429).length, limit);
    } finally {
      for (const kv of kvs) kv.close();
      try {
        server.kill();
      } catch {
        // it already exited
      }
      await server.status;
      Deno.env.delete("DENO_KV_ACCESS_TOKEN");
      await Deno.remove(dir, { recursive: true });
    }
  },
});
