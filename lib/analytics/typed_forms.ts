/**
 * The typed forms of a query ("Custom Filters!", "cústom filters") counted beside its
 * normalised one, so the report shows the form visitors type most. A query's forms per day are
 * bounded (MAX_FORMS an instance), so varying its case cannot multiply its keys; the forms
 * past them are counted under the normalised form alone. Kept in this instance's memory,
 * bounded per site like once_per_visitor.ts.
 */

/** Forms of one query kept per day and instance. */
const MAX_FORMS = 4;
/** Queries remembered per site at most (the oldest go first). */
const MAX_PER_SITE = 10_000;

export class TypedForms {
  /** Site → "day NUL query" → the forms admitted. */
  private sites = new Map<string, Map<string, Set<string>>>();

  /** Whether `form` of `query` is counted on `day`: one already admitted, or room for it. */
  admit(siteId: string, day: string, query: string, form: string): boolean {
    let seen = this.sites.get(siteId);
    if (!seen) this.sites.set(siteId, seen = new Map());
    const key = `${day}\u0000${query}`;
    const forms = seen.get(key) ?? new Set<string>();
    seen.delete(key); // to the back: the oldest go first
    seen.set(key, forms);
    if (seen.size > MAX_PER_SITE) seen.delete(seen.keys().next().value!);
    if (forms.has(form)) return true;
    if (forms.size >= MAX_FORMS) return false;
    forms.add(form);
    return true;
  }
}
