/**
 * A site's filter names and values, bounded: at most SITE_FILTER_LIMITS.names names and
 * SITE_FILTER_LIMITS.valuesPerName values of each, over all its pages. Every distinct value
 * costs a set of documents in the index, in memory and in snapshots, so one site cannot grow
 * them without end. A page keeps the filters that fit; the others are named in warnings.
 *
 * The vocabulary only grows (a value no page carries any more still counts): a cap that
 * moved with deletions would need a count per value on every page write.
 */
import { normalFilters, type PageFilters } from "./filters.ts";
import { SITE_FILTER_LIMITS } from "../search/mod.ts";

const namesKey = (site: string) => ["filternames", site];
const valueKey = (site: string, name: string, value: string) => ["filtervalue", site, name, value];
const countKey = (site: string, name: string) => ["filtercount", site, name];

/** What a page's filters keep, and a warning for each name or value that did not fit. */
export interface AdmittedFilters {
  filters: PageFilters | undefined;
  warnings: string[];
}

/** The page as it may be stored: with the filters the site has room for, and a warning for each other. */
export async function withAdmittedFilters<T extends { filters?: PageFilters }>(
  kv: Deno.Kv,
  site: string,
  page: T,
): Promise<{ page: T; warnings: string[] }> {
  if (!page.filters) return { page, warnings: [] };
  const { filters, warnings } = await admitFilters(kv, site, normalFilters(page.filters));
  return { page: { ...page, filters }, warnings };
}

/** Admits a page's filters into the site's vocabulary (atomic checks; retried on a race). */
async function admitFilters(
  kv: Deno.Kv,
  site: string,
  filters: PageFilters | undefined,
): Promise<AdmittedFilters> {
  if (!filters || !Object.keys(filters).length) return { filters, warnings: [] };
  for (let attempt = 0; attempt < 10; attempt++) {
    const done = await tryAdmit(kv, site, filters);
    if (done) return done;
  }
  throw new Error("The site's filters are busy. Retry.");
}

async function tryAdmit(kv: Deno.Kv, site: string, filters: PageFilters) {
  const names = await kv.get<string[]>(namesKey(site));
  const known = new Set(names.value ?? []);
  const op = kv.atomic().check(names);
  const kept: PageFilters = {};
  const warnings: string[] = [];
  const added: string[] = [];
  let changed = false;
  for (const [name, values] of Object.entries(filters)) {
    if (!known.has(name)) {
      if (known.size >= SITE_FILTER_LIMITS.names) {
        warnings.push(
          `filter "${name}" was not kept: a site has at most ${SITE_FILTER_LIMITS.names} filter names.`,
        );
        continue;
      }
      known.add(name);
      added.push(name);
    }
    const count = await kv.get<number>(countKey(site, name));
    op.check(count);
    let n = count.value ?? 0;
    const have = await getMany(kv, values.map((v) => valueKey(site, name, v)));
    const keep: string[] = [];
    values.forEach((value, i) => {
      if (have[i].value) return void keep.push(value);
      if (n >= SITE_FILTER_LIMITS.valuesPerName) {
        warnings.push(
          `filter value "${name}: ${value}" was not kept: a filter has at most ${SITE_FILTER_LIMITS.valuesPerName} values.`,
        );
        return;
      }
      op.check(have[i]).set(valueKey(site, name, value), true);
      n++;
      changed = true;
      keep.push(value);
    });
    if (n !== (count.value ?? 0)) op.set(countKey(site, name), n);
    if (keep.length) kept[name] = keep;
  }
  if (added.length) op.set(namesKey(site), [...known]);
  // Nothing new, no write: most pages of a site repeat values it has (which never go away).
  if (changed || added.length) {
    const res = await op.commit();
    if (!res.ok) return null;
  }
  return { filters: Object.keys(kept).length ? kept : undefined, warnings };
}

/** getMany in KV's batches of 10. */
async function getMany(kv: Deno.Kv, keys: Deno.KvKey[]) {
  const out: Deno.KvEntryMaybe<boolean>[] = [];
  for (let i = 0; i < keys.length; i += 10) {
    out.push(...await kv.getMany<boolean[]>(keys.slice(i, i + 10)));
  }
  return out;
}
