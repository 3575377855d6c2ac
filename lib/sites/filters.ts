/**
 * A page's filters (docs/api.md "Filters"): names to values, such as `{"category": ["Brewing"]}`,
 * within the limits one home keeps here for the upsert body, the crawler and storage.
 */

/** Names a page may carry, values per page (all names together), characters of each. */
export const FILTER_LIMITS = { names: 10, values: 20, chars: 64 } as const;

/** Filter name → its values for one page. */
export type PageFilters = Record<string, string[]>;

/** A name: letters, digits, `_`, `-` or `.` (never `:`, which ends the name in `filter=`). */
export const FILTER_NAME = /^[\p{L}\p{N}_.-]+$/u;

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Why a page's filters are refused (the first problem), or null when they are within limits. */
export function filtersError(filters: PageFilters): string | null {
  const names = Object.keys(filters);
  const { names: maxNames, values: maxValues, chars } = FILTER_LIMITS;
  if (names.length > maxNames) return `at most ${maxNames} filter names a page`;
  let values = 0;
  for (const name of names) {
    if (!FILTER_NAME.test(name) || [...name].length > chars) {
      return `filter names are 1 to ${chars} letters, digits, _, - or . ("${name.slice(0, 80)}")`;
    }
    const list = filters[name];
    if (!Array.isArray(list)) return `filters.${name} must be a list of strings`;
    for (const v of list) {
      if (typeof v !== "string" || !v.trim() || [...v].length > chars || CONTROL.test(v)) {
        return `filters.${name}: each value is a non-empty text of at most ${chars} characters`;
      }
    }
    values += list.length;
  }
  if (values > maxValues) return `at most ${maxValues} filter values a page`;
  return null;
}

/**
 * Filters as a crawled page declares them, cut to the limits instead of refused (a page's
 * markup is not the owner's request): values trimmed, repeats and bad entries dropped, the
 * first names and values kept.
 */
export function cutFilters(pairs: Iterable<[string, string]>): PageFilters | undefined {
  const out: PageFilters = {};
  let names = 0, values = 0;
  for (const [rawName, rawValue] of pairs) {
    const name = rawName.trim(), value = rawValue.replace(/\s+/g, " ").trim();
    if (!FILTER_NAME.test(name) || [...name].length > FILTER_LIMITS.chars) continue;
    if (!value || [...value].length > FILTER_LIMITS.chars) continue;
    if (values >= FILTER_LIMITS.values) break;
    if (!out[name]) {
      if (names >= FILTER_LIMITS.names) continue;
      out[name] = [];
      names++;
    }
    if (out[name].includes(value)) continue;
    out[name].push(value);
    values++;
  }
  return names ? out : undefined;
}

/** The same filters in one order (names sorted, values trimmed and unique): for hashing and storing. */
export function normalFilters(filters: PageFilters | undefined): PageFilters | undefined {
  if (!filters) return undefined;
  const out: PageFilters = {};
  for (const name of Object.keys(filters).sort()) {
    const values = [...new Set(filters[name].map((v) => v.trim()))];
    if (values.length) out[name] = values;
  }
  return Object.keys(out).length ? out : undefined;
}
