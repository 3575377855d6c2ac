/// <reference lib="dom" />
/** Hydrates every island on the page: its name picks the component, its JSON script the props. */
import { type ComponentType, h, hydrate } from "preact";
import { ISLANDS } from "./registry.ts";

for (const el of document.querySelectorAll<HTMLElement>("[data-island]")) {
  const component = ISLANDS[el.dataset.island as keyof typeof ISLANDS] as ComponentType;
  const json = el.querySelector(":scope > script[type='application/json']")?.textContent;
  const root = el.querySelector(":scope > [data-island-root]");
  if (!component || !json || !root) continue;
  hydrate(h(component, JSON.parse(json)), root);
}
// A mark for tests and styles: every island on the page is live.
document.documentElement.dataset.islands = "hydrated";
