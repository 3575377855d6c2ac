/**
 * What the admin routes of the levers do: lists checked and stored, a curation's pins of pages
 * that no longer exist reported to the owner, and a preview of a query with unsaved lists.
 */
import { invalid } from "../errors.ts";
import type { SearchResult } from "../search/mod.ts";
import type { Services } from "../services.ts";
import type { Site } from "../sites/store.ts";
import { checkCurations, compileCurations, type Curation } from "./curations.ts";
import { checkAnswerPins } from "./answer_pins.ts";
import { leversFor } from "./levers.ts";
import { LIMITS } from "./limits.ts";
import { checkSynonyms, compileSynonyms, type Synonym } from "./synonyms.ts";
import { text } from "./check.ts";
import { checkTargets, targetsOf } from "./targets.ts";
import { compileNames, withNames } from "./url_names.ts";
import type { PinWarning } from "../wire_types.ts";

export type { PinWarning };

/** Pages looked up at once while checking an answer pin's sources. */
const LOOKUPS = 20;

/** The pins of a stored list whose page (or section) the site does not have (any more). */
export const deadPins = (s: Services, site: string, list: Curation[]) =>
  checkTargets(s, site, list, { known: targetsOf(list), all: true });

/** A site's synonyms. */
export async function getSynonyms(s: Services, site: Site) {
  return { synonyms: (await s.levers.current(site.id)).synonyms, limits: LIMITS };
}

/** Replaces a site's synonyms from a PUT body (nothing stored when an entry is bad). */
export async function putSynonyms(s: Services, site: Site, body: unknown) {
  const list = checkSynonyms(body);
  return { synonyms: (await s.levers.putSynonyms(site.id, list)).synonyms, limits: LIMITS };
}

/** A site's curations, with warnings for pins of pages that are gone. */
export async function getCurations(s: Services, site: Site) {
  const { curations } = await s.levers.current(site.id);
  return { curations, warnings: await deadPins(s, site.id, curations), limits: LIMITS };
}

/**
 * Replaces a site's curations from a PUT body: nothing stored when an entry is bad or names a
 * section the site does not have (one stored before and gone since is only a warning).
 */
export async function putCurations(s: Services, site: Site, body: unknown) {
  const list = checkCurations(body);
  const known = targetsOf((await s.levers.current(site.id)).curations);
  const warnings = await checkTargets(s, site.id, list, { known, all: true });
  const { curations } = await s.levers.putCurations(site.id, list);
  return { curations, warnings, limits: LIMITS };
}

/** A site's answer pins. */
export async function getAnswerPins(s: Services, site: Site) {
  const { answers } = await s.levers.current(site.id);
  return { answers, limits: LIMITS };
}

/**
 * Replaces a site's answer pins from a PUT body: nothing stored when an entry is bad or cites
 * a page the site does not have (a pinned answer cites pages visitors can open).
 */
export async function putAnswerPins(s: Services, site: Site, body: unknown) {
  const list = checkAnswerPins(body);
  const cited = list.flatMap((a, i) =>
    a.sources.map((url, j) => ({ url, at: `answers[${i}].sources[${j}]` }))
  );
  for (let i = 0; i < cited.length; i += LOOKUPS) {
    const batch = cited.slice(i, i + LOOKUPS);
    const metas = await Promise.all(batch.map((c) => s.pages.meta(site.id, c.url)));
    const missing = metas.findIndex((m) => !m);
    if (missing >= 0) {
      const { url, at } = batch[missing];
      throw invalid(at, `${at} must be a page of the site: there is no page ${url}.`);
    }
  }
  const { answers } = await s.levers.putAnswers(site.id, list);
  return { answers, limits: LIMITS };
}

/** Results shown in a preview (the first page). */
const PREVIEW_RESULTS = 10;

const brief = (r: SearchResult) => ({
  found: r.found,
  results: r.hits.map((h) => ({
    title: h.title,
    url: h.url,
    ...(h.pinned ? { pinned: true } : {}),
  })),
});

/**
 * A query's first results as searches show them now (`before`) and with the lists of the body
 * (`after`; a list left out stays as stored), and the warnings of pins the body adds. Checks
 * the lists as PUT does; spends no quota.
 */
export async function preview(s: Services, site: Site, body: unknown) {
  await s.previewLimit.hit(site.id); // two searches each, with lists nobody saved
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw invalid("body", "body must be an object.");
  }
  const o = body as Record<string, unknown>;
  const q = text(o.q, "q", LIMITS.queryChars);
  const stored = await s.levers.current(site.id);
  const synonyms: Synonym[] = o.synonyms === undefined
    ? stored.synonyms
    : checkSynonyms({ synonyms: o.synonyms });
  const curations: Curation[] = o.curations === undefined
    ? stored.curations
    : checkCurations({ curations: o.curations });
  // Targets checked as a save checks them; only those no stored curation names are looked up.
  const warnings = o.curations === undefined ? [] : await checkTargets(s, site.id, curations, {
    known: targetsOf(stored.curations),
    all: false,
  });
  // The URL names a crawl published hold in both, as in every search.
  const after = leversFor({
    versions: stored.versions,
    expand: o.synonyms === undefined
      ? stored.expand
      : withNames(compileSynonyms(synonyms), compileNames(stored.names)),
    place: compileCurations(curations),
  }, q);
  const [now, next] = await Promise.all([
    s.indexes.search(site.id, { query: q, perPage: PREVIEW_RESULTS, ...leversFor(stored, q) }),
    s.indexes.search(site.id, { query: q, perPage: PREVIEW_RESULTS, ...after }),
  ]);
  return { q, before: brief(now), after: brief(next), warnings };
}
