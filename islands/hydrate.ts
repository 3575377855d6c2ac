/// <reference lib="dom" />
/** Hydrates every island of a table on the page: its name picks the component, its JSON the props. */
import { type ComponentType, h, hydrate } from "preact";

/** The id of the page's strings table (components/Layout.tsx writes it for all but English). */
export const STRINGS_ID = "sitesearch-strings";

/** Hydrates the page's `[data-island]` elements that `table` names. */
export function hydrateIslands(table: Record<string, ComponentType<never>>): void {
  for (const el of document.querySelectorAll<HTMLElement>("[data-island]")) {
    const component = table[el.dataset.island ?? ""] as ComponentType | undefined;
    const json = el.querySelector(":scope > script[type='application/json']")?.textContent;
    const root = el.querySelector(":scope > [data-island-root]");
    if (!component || !json || !root) continue;
    hydrate(h(component, JSON.parse(json)), root);
  }
  // A mark for tests and styles: every island on the page is live.
  document.documentElement.dataset.islands = "hydrated";
}
