/**
 * Site search as the service hosts it: the engine (engine/mod.ts, pure code over one site's
 * index) and, around it, the indexes of every site this instance serves (indexes.ts), loaded
 * from snapshots in KV (snapshots.ts) or built from the site's pages (site_index.ts,
 * documents.ts), kept current across instances, held within a memory budget (budget.ts),
 * opened again after a restart where they were in use (working_set.ts), their pages' text
 * kept where the host says (a file: lib/storage/text_spill.ts),
 * warmed up while no search comes (warm.ts), and encoded answers kept (result_cache.ts).
 */
export { SearchIndexes } from "./indexes.ts";
export { IndexBudget } from "./budget.ts";
export { noteArrival, SEARCH_QUIET_MS, searchesPaused } from "./activity.ts";
export { rehearseVisitors, warmSearch, warmWhileQuiet } from "./warm.ts";
export { ResultCache } from "./result_cache.ts";
export { Snapshots } from "./snapshots.ts";
export { WorkingSet } from "./working_set.ts";
export type { Alternatives, Expand, SearchResult } from "./engine/mod.ts";
export { MAX_ALTERNATIVES, SITE_FILTER_LIMITS } from "./engine/mod.ts";
