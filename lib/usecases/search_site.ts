/**
 * The search use case, one for every surface that searches (GET /api/search, the results
 * page): key and origin, the quota (typing sessions included), the result cache or the site's
 * index, analytics. Returns what was found as data, or, to a caller that sends it as JSON, as
 * the bytes the result cache holds.
 */
import { invalidSearchKey } from "../errors.ts";
import { PLANS } from "../limits/plans.ts";
import { rateLimitHeaders } from "../limits/too_many.ts";
import { ResultCache } from "../search/mod.ts";
import type { Services } from "../services.ts";
import { acceptsPublicKey, originError, type Site } from "../sites/store.ts";
import type { SearchResponse } from "../wire_types.ts";

/** How long a key's site is taken from the cache without a read (keys are checked fresh after). */
const KEY_HINT_MS = 60_000;

/** One search as a surface asks it, parameters already validated. */
export interface SearchAsk {
  /** A public key of the right shape (lib/http/auth.ts `publicKeyOf`). */
  key: string;
  /** The request's `Origin` header, if any. */
  origin?: string;
  q: string;
  page: number;
  perPage: number;
  /** `filter=` parameters: name → values (OR within a name, AND across names). */
  filters?: ReadonlyMap<string, readonly string[]>;
  /** Whether `meta.facets` is answered (docs/api.md: unless `facets=false`). */
  facets?: boolean;
  /** A live typing session's id: refinements ride on its counted search. */
  session?: string;
  /** The client's address, read only when the search is counted (analytics' evidence). */
  visitor?: () => string | undefined;
  /** Told the site's id as soon as the key names one (the request log). */
  onSite?: (siteId: string) => void;
  /**
   * The caller sends the body as JSON (GET /api/search): the result cache answers with the
   * bytes it holds, and a body ranked now is encoded once, for the cache and the caller.
   */
  asJson?: boolean;
}

/** What a search found, and the site it searched. */
export interface SearchAnswer {
  site: Site;
  /** The quota's RateLimit headers, sent with every answer (lib/limits/too_many.ts). */
  headers: Record<string, string>;
  found: number;
  /** Results per page applied (capped at the plan's maximum). */
  perPage: number;
  /** The results and meta as data (for a caller that does not send JSON). */
  response?: SearchResponse;
  /** The same as JSON bytes (for a caller that sends JSON: `asJson`). */
  json?: Uint8Array<ArrayBuffer>;
}

const encoder = new TextEncoder();

/** The filters and facets asked, as one text: the same ones in any order give the same. */
function narrowingKey(ask: SearchAsk): string {
  if (!ask.filters?.size) return ask.facets ? "[1,[]]" : ""; // most searches: no JSON to make
  const names = [...(ask.filters ?? [])].map(([n, v]) => [n, [...v].sort()] as const)
    .sort((a, b) => a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  return names.length || ask.facets ? JSON.stringify([ask.facets ? 1 : 0, names]) : "";
}

/** Sites with a request's index and levers reads running beside a quota refill. */
const besideRefill = new Set<string>();

/**
 * The site's index as searches read it now, and what its levers make of `q`: at once when both
 * are in memory and checked lately (a repeated search then awaits nothing), else as a promise.
 */
function versions(s: Services, siteId: string, q: string) {
  const index = s.indexes.reader(siteId), levers = s.levers.forQuery(siteId, q);
  return index instanceof Promise || levers instanceof Promise
    ? Promise.all([index, levers])
    : [index, levers] as const;
}

/** Searches a site for a caller that sends JSON: the body as bytes; throws the refusal. */
export function searchSite(
  s: Services,
  ask: SearchAsk & { asJson: true },
): Promise<SearchAnswer & { json: Uint8Array<ArrayBuffer> }>;
/** Searches a site for a caller that shows the results: the body as data; throws the refusal. */
export function searchSite(
  s: Services,
  ask: SearchAsk & { asJson?: false },
): Promise<SearchAnswer & { response: SearchResponse }>;
/** Searches a site for a visitor or a server; throws the DomainError that refuses it. */
export async function searchSite(s: Services, ask: SearchAsk): Promise<SearchAnswer> {
  // Work that runs while no one searches (the deep warm-up, a pass) stands aside from here on,
  // not from the index read three KV round trips later (search/activity.ts).
  s.indexes.noteSearch();
  // The key names the site; whether it still opens it (a rotated key in its grace period
  // included), and from this origin, the quota decides on a read at most 1 s old.
  const byKey = s.sites.byPublicKeyCached(ask.key, KEY_HINT_MS);
  const cached = byKey instanceof Promise ? await byKey : byKey;
  if (!cached) throw invalidSearchKey();
  ask.onSite?.(cached.id);
  const session = ask.session ? { id: ask.session, q: ask.q } : undefined;
  // From this instance's reserved block at once, or after one refill (lib/limits/quota.ts).
  const admitted = s.quota.admit(cached.id, (fresh) => {
    if (!fresh || !acceptsPublicKey(fresh, ask.key, s.clock())) return invalidSearchKey();
    return originError(fresh, ask.origin);
  }, session);
  // The index version is part of the key: no answer from before an upsert or delete comes back.
  // So is the version of the site's synonyms and curations: a change shows at once. When the
  // quota must refill (a site's first search after a quiet spell), their reads (KV after a
  // quiet spell too) go beside its round trip, not after it. They only read, and for one
  // request of a site at a time: requests the quota holds back (or refuses) add no KV work.
  let reads: ReturnType<typeof versions> | undefined;
  if (admitted instanceof Promise && !besideRefill.has(cached.id)) {
    const id = cached.id;
    reads = versions(s, id, ask.q);
    if (reads instanceof Promise) {
      besideRefill.add(id);
      reads.catch(() => {}).finally(() => besideRefill.delete(id)); // a refusal leaves them unread
    }
  }
  const { site, state } = admitted instanceof Promise ? await admitted : admitted;
  s.sites.remember(site);
  const perPage = Math.min(ask.perPage, state.limits.maxPerPage);
  const read = reads ?? versions(s, site.id, ask.q);
  const [index, levers] = read instanceof Promise ? await read : read;
  const cacheKey = ResultCache.key({
    site: site.id,
    version: index.version,
    plan: site.plan,
    q: ask.q,
    page: ask.page,
    perPage,
    levers: levers.version,
    narrowing: narrowingKey(ask),
  });
  // The cache holds encoded bodies: only a caller that sends them as they are reads it.
  let encoded = ask.asJson ? s.resultCache.get(cacheKey) : undefined;
  let response: SearchResponse | undefined;
  if (!encoded) {
    const { found, hits, corrections, facets } = await index.search({
      query: ask.q,
      page: ask.page,
      perPage,
      expand: levers.expand,
      placement: levers.placement,
      filters: ask.filters,
      facets: ask.facets,
    });
    // Each result carries the token its click must bring back (analytics/click_tokens.ts).
    const sign = await s.clickTokens.signer(site.id, ask.q);
    response = {
      results: hits.map((hit) => ({ ...hit, click: sign(hit.url) })),
      meta: {
        found,
        page: ask.page,
        per_page: perPage,
        performance_tier: site.plan,
        performance_profile: PLANS[site.plan].profile,
        // The query words replaced by words the pages use ("Showing results for …").
        ...(corrections.length ? { corrections } : {}),
        ...(facets ? { facets } : {}),
      },
    };
    if (ask.asJson) {
      encoded = { bytes: encoder.encode(JSON.stringify(response)), found };
      s.resultCache.set(cacheKey, encoded);
    }
  }
  const found = encoded?.found ?? response!.meta.found;
  // Paging is not another search; a typing session's query counts once it is finished.
  if (ask.page === 1) {
    s.analytics.search(site.id, ask.q, found, {
      session: ask.session,
      visitor: ask.visitor?.(),
    });
  }
  return { site, headers: rateLimitHeaders(state), found, perPage, response, json: encoded?.bytes };
}
