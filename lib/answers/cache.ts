/**
 * Answers kept for a site, keyed by the normalised question and the site's index
 * versions: the same question asked again before any page changes is answered from
 * here at once and costs no AI credit. A change to the pages or documents moves the
 * version, so an answer never outlives the text it was made from.
 */
import { sha256Hex } from "../sites/keys.ts";
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";
import type { SourceRef } from "./retrieve.ts";
import type { SupportCheck } from "./support.ts";

export interface CachedAnswer {
  answer: string;
  truncated: boolean;
  sources: SourceRef[];
  /** The support check it passed (answers/support.ts). */
  check?: SupportCheck;
}

const TTL_MS = 7 * 24 * 3600_000;

/** The question as asked again: case, width, spacing and closing punctuation do not count. */
export function normaliseQuestion(q: string): string {
  return q.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").replace(/[\s?!.。？！]+$/u, "")
    .trim();
}

/** The cache key of a question on a site as its pages and answerer stand now. */
export async function answerKey(s: Services, site: Site, question: string): Promise<Deno.KvKey> {
  const [pages, docs, levers, hash] = await Promise.all([
    s.pages.version(site.id),
    s.documents.version(site.id),
    s.levers.forQuery(site.id, question), // a curation that hides a source changes the answer
    sha256Hex(normaliseQuestion(question)),
  ]);
  const settings =
    `${s.summarizer.name}|checked|${site.plan}|${site.settings.externalKnowledge}|${levers.version}`;
  return ["answers", site.id, pages.version, docs.version, settings, hash];
}

/** A kept answer, or null. */
export async function cachedAnswer(kv: Deno.Kv, key: Deno.KvKey): Promise<CachedAnswer | null> {
  return (await kv.get<CachedAnswer>(key)).value;
}

/** Keeps an answer (at most 1,600 characters and a few sources: far below KV's value limit). */
export async function keepAnswer(kv: Deno.Kv, key: Deno.KvKey, a: CachedAnswer): Promise<void> {
  await kv.set(key, a, { expireIn: TTL_MS });
}
