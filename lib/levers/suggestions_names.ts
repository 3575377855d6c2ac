/**
 * The names a site's URLs give its pages (a redirect, a canonical URL), for its owner: each
 * crawl publishes those it found as the site's "names" list, which searches use
 * (url_names.ts); each is offered as a synonym, and one dismissed is dropped from the list
 * and never published again.
 */
import type { Equivalence } from "../search/engine/mod.ts";
import type { Expand } from "../search/mod.ts";
import type { Services } from "../services.ts";
import { dismissal, dismissedSet } from "./dismissed.ts";
import { phraseKey } from "./normalise.ts";
import { nameSides } from "./url_names.ts";
import type { Suggestion } from "../wire_types.ts";

/** Names a site keeps at most (most often met first). */
const MAX_URL_NAMES = 500;

/** Whether the owner dismissed a name's suggestion. */
const dismissedName = async (dismissed: Set<string>, n: Equivalence) => {
  const [query, to] = nameSides(n);
  return dismissed.has(await dismissal("synonym", query, to));
};

/** Makes a crawl's names the site's list (those the owner dismissed left out). */
export async function publishUrlNames(s: Services, site: string, found: Equivalence[]) {
  const dismissed = await dismissedSet(s.kv, site);
  const keep: Equivalence[] = [];
  for (const n of found.slice(0, MAX_URL_NAMES)) {
    if (n.urls && !await dismissedName(dismissed, n)) keep.push(n);
  }
  const { names } = await s.levers.current(site);
  if (JSON.stringify(names) !== JSON.stringify(keep)) await s.levers.putNames(site, keep);
}

/** Drops the names a dismissed synonym suggestion (`query` → `to`) came from. */
export async function dropUrlName(s: Services, site: string, query: string, to: string) {
  const { names } = await s.levers.current(site);
  const left = names.filter((n) => {
    const [a, b] = nameSides(n);
    return !(phraseKey(a) === phraseKey(query) && phraseKey(b) === phraseKey(to));
  });
  if (left.length !== names.length) await s.levers.putNames(site, left);
}

/** A synonym suggestion for each URL name the owner's synonyms do not have yet. */
export function urlNameSuggestions(
  names: Equivalence[],
  searched: (query: string) => number,
  synonyms: Expand | undefined,
  max: number,
): Suggestion[] {
  const out: Suggestion[] = [];
  for (const n of names) {
    if (out.length >= max) break;
    const [query, to] = nameSides(n);
    if (synonyms?.(query.split(" "), () => true).length) continue;
    const [fromUrl, toUrl] = n.urls!;
    const said = n.kind === "redirect"
      ? `“${fromUrl}” redirects to “${toUrl}”`
      : `“${fromUrl}” names “${toUrl}” as its canonical URL`;
    out.push({
      kind: "synonym",
      query,
      to,
      searches: searched(query),
      why: `Your site's URL ${said}${n.seen > 1 ? `, as ${n.seen - 1} more do` : ""}.`,
      apply: { word: query, means: [to] },
    });
  }
  return out;
}
