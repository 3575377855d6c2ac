/**
 * The app with two sites to search on the wire (tests/http/*search*_test.ts): an enterprise
 * site of twelve pages, and a strict one that allows one origin and 4 searches a minute. Every
 * log line is kept.
 */
import { createApp } from "../../app.ts";

export async function searchSites(operatorToken: string) {
  const kv = await Deno.openKv(":memory:");
  const lines: Record<string, unknown>[] = [];
  const { app, services: s, early } = createApp({
    kv,
    operatorToken,
    log: (l) => lines.push(l),
  });
  const { site, publicKey } = await s.sites.create({ name: "Early", plan: "enterprise" });
  const words = ["configuration", "install", "cache", "server", "widget", "index", "token"];
  for (let i = 0; i < 12; i++) {
    const body = Array.from({ length: 80 }, (_, j) => words[(i * 5 + j * 3) % words.length]);
    await s.pages.upsert(site.id, {
      url: `/p/${i}`,
      title: `Page ${i} été`,
      body: body.join(" "),
    }, 1e9);
  }
  const strict = await s.sites.create({ name: "Strict", plan: "basic" });
  await s.sites.update(strict.site.id, (x) => ({
    ...x,
    settings: { ...x.settings, allowedOrigins: ["https://shop.example"] },
    limits: { searchesPerMinute: 4 },
  }));
  return {
    app,
    early,
    lines,
    publicKey,
    strictKey: strict.publicKey,
    async close() {
      await s.close();
      kv.close();
    },
  };
}
