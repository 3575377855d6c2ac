/**
 * Removing a site and everything it left in KV. Every key space keeps a site's data
 * under [space, siteId, …] (pages, bodies, documents, conversations, counters, crawl
 * jobs and history, …); the key spaces are found by skipping through KV one space at a
 * time, so a space added later is swept too. The lookups keyed by the keys themselves
 * (public keys, admin key hashes) are found by their value, the site's id; those keyed by a
 * host or a time (crawl hosts, the sitemap watch's due list) by the site's id last in the key.
 */
import type { Site } from "./store.ts";
import type { Services } from "../services.ts";
import { stopSiteCrawl } from "../crawl/jobs.ts";
import { withMark } from "../storage/change_marks.ts";

/** Deletes per atomic commit: well under KV's mutation cap. */
const BATCH = 500;
/** A runner notices a stopped job on its next write, about a second later. */
const SETTLE_MS = 1500;

/** Deletes `[space, siteId, …]` in every key space and the site's key lookups; returns keys removed. */
export async function removeSiteData(kv: Deno.Kv, site: Site): Promise<number> {
  let removed = 0;
  // Lookups keyed by the keys themselves: every one naming this site (old keys in a grace
  // period too), and the demo record when this is the demo site.
  for (const space of ["pk", "ak"]) {
    for await (const e of kv.list<string>({ prefix: [space] })) {
      if (e.value !== site.id) continue;
      await kv.atomic().check(e).delete(e.key).commit();
      removed++;
    }
  }
  // Lookups keyed first by something else, naming the site last: the hosts crawls fetch from
  // (IndexNow's lookup) and the sitemap watch's due times.
  for (const space of ["crawlhost", "sitemapdue"]) {
    for await (const e of kv.list({ prefix: [space] })) {
      if (e.key.at(-1) !== site.id) continue;
      await kv.delete(e.key);
      removed++;
    }
  }
  const demo = await kv.get<{ siteId?: string }>(["config", "demo"]);
  if (demo.value?.siteId === site.id) {
    await kv.atomic().check(demo).delete(demo.key).commit();
    removed++;
  }
  for await (const space of keySpaces(kv)) {
    // A prefix list leaves out the key that equals the prefix ([space, id], e.g. a version).
    const own = await kv.get([space, site.id]);
    if (own.versionstamp) {
      await kv.delete(own.key);
      removed++;
    }
    removed += await deletePrefix(kv, [space, site.id]);
  }
  // Other instances' caches of the site (its pages' version, its levers) read KV again.
  await withMark(kv.atomic(), site.id).commit();
  return removed;
}

/** The distinct string first elements of all keys, found with one short read each. */
async function* keySpaces(kv: Deno.Kv): AsyncGenerator<string> {
  let start: Deno.KvKey | null = null;
  while (true) {
    const iter = kv.list(start ? { prefix: [], start } : { prefix: [] }, { limit: 1 });
    let first: Deno.KvKeyPart | undefined;
    for await (const e of iter) first = e.key[0];
    if (typeof first !== "string") return; // byte keys sort first, numbers after: we use neither
    yield first;
    // ["space\0"] sorts after every [space, …] key and before the next space.
    start = [first + "\0"];
  }
}

async function deletePrefix(kv: Deno.Kv, prefix: Deno.KvKey): Promise<number> {
  let removed = 0;
  while (true) {
    const keys: Deno.KvKey[] = [];
    for await (const e of kv.list({ prefix }, { limit: BATCH })) keys.push(e.key);
    if (keys.length === 0) return removed;
    const op = kv.atomic();
    for (const k of keys) op.delete(k);
    await op.commit();
    removed += keys.length;
  }
}

/**
 * Deletes a site for good: its record first (every call fails from then on), its crawl
 * stopped, its in-memory indexes and their snapshot saves under way, all its keys
 * (snapshots too). A crawl step still running elsewhere may land a last write: when a
 * crawl was live, the keys are swept once more after it stopped. (A snapshot save on
 * another instance finds the site's pages gone and never publishes its snapshot.)
 */
export async function deleteSite(s: Services, site: Site): Promise<number> {
  await s.sites.delete(site);
  const crawling = await stopSiteCrawl(s, site.id);
  await s.indexes.forget(site.id);
  await s.documentIndexes.forget(site.id);
  let removed = await removeSiteData(s.kv, site);
  s.indexes.drop(site.id);
  s.documentIndexes.drop(site.id);
  if (crawling) {
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    removed += await removeSiteData(s.kv, site);
    s.indexes.drop(site.id);
  }
  return removed;
}
