/// <reference lib="dom" />
/** How the results page's islands agree on the query: the URL, and one event when it changes. */

const EVENT = "sitesearch:query";

export interface QueryState {
  q: string;
  page: number;
}

/** The query and page in the address bar. */
export function currentQuery(): QueryState {
  const u = new URL(location.href);
  return {
    q: u.searchParams.get("q") ?? "",
    page: Math.max(1, Number(u.searchParams.get("page")) || 1),
  };
}

/** Puts a new query (and page) in the address bar and tells every island. */
export function goToQuery(q: string, page = 1) {
  const u = new URL(location.href);
  u.searchParams.set("q", q);
  if (page > 1) u.searchParams.set("page", String(page));
  else u.searchParams.delete("page");
  history.pushState(null, "", u);
  dispatchEvent(new CustomEvent<QueryState>(EVENT, { detail: { q, page } }));
}

/** Calls `fn` on every new query, Back and Forward included; returns the unsubscribe. */
export function onQuery(fn: (s: QueryState) => void): () => void {
  const changed = (e: Event) => fn((e as CustomEvent<QueryState>).detail);
  const popped = () => fn(currentQuery());
  addEventListener(EVENT, changed);
  addEventListener("popstate", popped);
  return () => {
    removeEventListener(EVENT, changed);
    removeEventListener("popstate", popped);
  };
}
