/**
 * Curations of a site: for a query (exact, or contained as whole words) pages pinned in
 * order on page 1 and pages hidden; a pin or hide may name a section of a page
 * (`/api.html#custom-filters`, checked against the site's pages by targets.ts). Checked entry by entry, and compiled into the lookup a
 * search makes: what to pin and hide for one query.
 */
import { invalid } from "../errors.ts";
import { sitePath } from "../http/schemas.ts";
import { givenId, list, oneEachQuery, queryAndMatch, record, uniqueIds } from "./check.ts";
import { newId } from "../sites/keys.ts";
import { LIMITS } from "./limits.ts";
import { phraseLookup } from "./normalise.ts";
import type { Curation } from "../wire_types.ts";
import type { Placement } from "../search/engine/mod.ts";

export type { Curation };

/** The page a pin or hide names: its URL before any "#section". */
export const pageOf = (url: string) => {
  const at = url.indexOf("#");
  return at > 0 ? url.slice(0, at) : url;
};

/** A list of site-relative paths (at most `max`, none twice), or a 400 naming the bad one. */
export function sitePaths(value: unknown, param: string, max: number): string[] {
  if (value === undefined) return [];
  const items = list(value, param, max);
  const seen = new Set<string>();
  return items.map((v, i) => {
    const r = sitePath.safeParse(v);
    if (!r.success) {
      throw invalid(`${param}[${i}]`, `${param}[${i}] must be a site-relative path like /pricing.`);
    }
    if (seen.has(r.data)) throw invalid(`${param}[${i}]`, `${param}[${i}] is listed twice.`);
    seen.add(r.data);
    return r.data;
  });
}

function entry(value: unknown, param: string): Curation & { given?: string } {
  const o = record(value, param, ["id", "query", "match", "pin", "hide"]);
  const given = givenId(o.id, `${param}.id`);
  const { query, match } = queryAndMatch(o, param, LIMITS.queryChars);
  const pin = sitePaths(o.pin, `${param}.pin`, LIMITS.pins);
  const hide = sitePaths(o.hide, `${param}.hide`, LIMITS.hides);
  const both = hide.findIndex((h) => pin.includes(h));
  if (both >= 0) throw invalid(`${param}.hide[${both}]`, `${param}.hide[${both}] is also pinned.`);
  // A hidden page never shows, so a pin of one of its sections could never hold.
  const under = hide.findIndex((h) => !h.includes("#") && pin.some((u) => pageOf(u) === h));
  if (under >= 0) {
    const u = pin.find((u) => pageOf(u) === hide[under]);
    throw invalid(
      `${param}.hide[${under}]`,
      `${param}.hide[${under}] hides the page whose section ${u} is pinned.`,
    );
  }
  if (!pin.length && !hide.length) {
    throw invalid(`${param}.pin`, `${param} pins or hides at least one page.`);
  }
  return { id: given ?? newId("cur"), query, match, pin, hide, given };
}

/** The body of PUT …/curations as the list to store, or a 400 naming the first bad field. */
export function checkCurations(body: unknown): Curation[] {
  const o = record(body, "body", ["curations"]);
  const items = list(o.curations, "curations", LIMITS.curations);
  const out = items.map((v, i) => entry(v, `curations[${i}]`));
  uniqueIds(out.map((e) => e.given), "curations");
  oneEachQuery(
    out,
    "curations",
    (_, j) =>
      `There is a curation for “${out[j].query}” already (curations[${j}]): edit that one instead.`,
  );
  return out.map(({ given: _, ...c }) => c);
}

/**
 * The lookup of a site's curations: for a query, the pins (exact curations first, then
 * contained ones in list order, at most one page's worth) and every matching hide.
 */
export function compileCurations(list: Curation[]): ((q: string) => Placement | null) | undefined {
  if (!list.length) return undefined;
  const lookup = phraseLookup(list);
  return (q: string) => {
    const hits = lookup(q);
    if (!hits.length) return null;
    const hide = new Set(hits.flatMap((c) => c.hide));
    const pin = [...new Set(hits.flatMap((c) => c.pin))].filter((u) => !hide.has(u));
    return { pin: pin.slice(0, LIMITS.pins), hide };
  };
}
