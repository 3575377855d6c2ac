/** GET /healthz: no key; 200 when KV answers a read within a moment, else 503. */
import { Hono } from "hono";
import { DomainError } from "../lib/errors.ts";
import { allowOnly, type AppEnv } from "../lib/http/middleware.ts";
import type { Services } from "../lib/services.ts";

const KV_TIMEOUT_MS = 2000;

export function healthRoutes(s: Services) {
  const app = new Hono<AppEnv>();
  app.get("/healthz", async (c) => {
    const started = performance.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const ok = await Promise.race([
      s.kv.get(["health"]).then(() => true, () => false),
      new Promise<false>((r) => timer = setTimeout(() => r(false), KV_TIMEOUT_MS)),
    ]);
    clearTimeout(timer);
    if (!ok) {
      throw new DomainError("SERVICE_UNAVAILABLE", "Storage is not answering.", {
        retryAfter: 5,
      });
    }
    c.header("Cache-Control", "no-store");
    return c.json({ status: "ok", kvMs: Math.round((performance.now() - started) * 10) / 10 });
  });
  allowOnly(app, "/healthz", ["GET"]);
  return app;
}
