/** Test helpers: the real app on a real KV, driven through its fetch handler. */
import { type AppOptions, createApp } from "../app.ts";
import type { PlanName } from "../lib/limits/plans.ts";
import { type PageInput, PageStore } from "../lib/sites/pages.ts";
import { SearchIndexes } from "../lib/search/mod.ts";
import { seeded } from "./fixtures/seeded.ts";

export const OPERATOR = "op_test_operator_token";

/** A clock tests move by hand: starts mid-month, mid-minute. */
export function manualClock(start = Date.UTC(2026, 10, 15, 12, 0, 30)) {
  let now = start;
  const clock = () => now;
  return Object.assign(clock, {
    set: (t: number) => void (now = t),
    advance: (ms: number) => void (now += ms),
  });
}

export interface TestApp {
  kv: Deno.Kv;
  call: (path: string, init?: RequestInit) => Promise<Response>;
  services: ReturnType<typeof createApp>["services"];
  /** The app's fetch handler, for serving it with Deno.serve. */
  fetch: ReturnType<typeof createApp>["app"]["fetch"];
  close: () => void;
}

/** The app on `:memory:` (or a shared KV file), with a silent logger. */
export async function startApp(
  opts: Partial<Omit<AppOptions, "kv">> & { kvPath?: string } = {},
): Promise<TestApp> {
  const { kvPath, ...rest } = opts;
  const kv = await Deno.openKv(kvPath ?? ":memory:");
  const { app, services } = createApp({ operatorToken: OPERATOR, log: () => {}, ...rest, kv });
  const call = (path: string, init?: RequestInit) =>
    Promise.resolve(app.fetch(new Request("http://127.0.0.1" + path, init)));
  return {
    kv,
    call,
    services,
    fetch: app.fetch,
    close: () => {
      services.analytics.discard(); // a test that wants its counts flushes them first
      services.quota.discard();
      kv.close();
    },
  };
}

export const admin = (token: string, body?: unknown, method = body ? "POST" : "GET") => ({
  method,
  headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
  body: body === undefined ? undefined : JSON.stringify(body),
});

export interface TestSite {
  id: string;
  publicKey: string;
  adminKey: string;
}

/** Creates a site through the admin API. */
export async function createSite(
  t: TestApp,
  plan: PlanName = "free",
  name = "Test",
): Promise<TestSite> {
  const res = await t.call("/api/admin/sites", admin(OPERATOR, { name, plan }));
  const body = await res.json();
  if (res.status !== 201) throw new Error(`create site: ${res.status} ${JSON.stringify(body)}`);
  return { id: body.site.id, publicKey: body.publicKey, adminKey: body.adminKey };
}

/** Upserts pages through the admin API and checks none failed. */
export async function putPages(
  t: TestApp,
  site: TestSite,
  pages: {
    url: string;
    title: string;
    body: string;
    description?: string;
    headings?: string[];
    filters?: Record<string, string[]>;
  }[],
) {
  const res = await t.call(`/api/admin/sites/${site.id}/pages`, {
    ...admin(site.adminKey, { pages }),
    method: "PUT",
  });
  const body = await res.json();
  if (res.status !== 200 || body.counts.failed) {
    throw new Error(`put pages: ${res.status} ${JSON.stringify(body)}`);
  }
  return body;
}

/** GET /api/search with the key as a parameter; returns status, headers and JSON. */
export async function search(t: TestApp, key: string, params: string, init?: RequestInit) {
  const res = await t.call(`/api/search?key=${key}&${params}`, init);
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/** Pages of a made-up site, numbered, with distinct words to search for. */
export function numberedPages(n: number, word = "widget") {
  return Array.from({ length: n }, (_, i) => ({
    url: `/p/${i}`,
    title: `${word} page ${i}`,
    body: `This ${word} page number ${i} explains something useful about ${word}s.`,
  }));
}

/** The bytes the index of a site with these pages counts against INDEX_MEMORY_MB. */
export async function indexBytesOf(pages: PageInput[]): Promise<number> {
  const kv = await Deno.openKv(":memory:");
  const store = new PageStore(kv, Date.now, "page");
  for (const p of pages) await store.upsert("site", p, pages.length);
  const indexes = new SearchIndexes(store);
  await indexes.search("site", { query: "any", perPage: 1 });
  await indexes.idle(); // with what its pass keeps (vocabulary order, passages)
  const { bytes } = indexes.held();
  indexes.discard();
  kv.close();
  return bytes;
}

/** `n` random words of random letters (seeded): text that deflate cannot shrink below half. */
export function randomWords(n: number, seed = 1, letters = "abcdefghijklmnopqrstuvwxyz") {
  const next = seeded(seed);
  const word = () =>
    Array.from(
      { length: 3 + Math.floor(next() * 6) },
      () => letters[Math.floor(next() * letters.length)],
    ).join("");
  return Array.from({ length: n }, word).join(" ");
}
