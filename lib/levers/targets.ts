/**
 * A curation's pins and hides as pages of the site: a page (`/pricing`), or a section of one
 * (`/api.html#custom-filters`: a page the site has, and an anchor its sections carry). A new
 * section that is not there is refused, naming the entry; a pin whose page (or section) went
 * away since it was saved is reported to the owner, and searches skip it (or link the page).
 */
import { invalid } from "../errors.ts";
import { namesAnchor } from "../search/engine/mod.ts";
import type { Services } from "../services.ts";
import type { PageMeta } from "../sites/pages.ts";
import { type Curation, pageOf } from "./curations.ts";
import type { PinWarning } from "../wire_types.ts";

/** Pages looked up at once. */
const LOOKUPS = 20;
/** Anchors a refusal names, of the page's own, to show what it has. */
const NAMED_ANCHORS = 5;

type Found =
  | { ok: true }
  | { ok: false; reason: "page_not_found"; page: string }
  | { ok: false; reason: "section_not_found"; page: string; anchors: string[] };

/** What the site has of each URL: the page as it stands, or the section of a page it names. */
async function lookUp(s: Services, site: string, urls: string[]): Promise<Map<string, Found>> {
  const pages = new Map<string, PageMeta | null>();
  const read = async (list: string[]) => {
    const todo = [...new Set(list)].filter((u) => !pages.has(u));
    for (let i = 0; i < todo.length; i += LOOKUPS) {
      const batch = todo.slice(i, i + LOOKUPS);
      const metas = await Promise.all(batch.map((u) => s.pages.meta(site, u)));
      metas.forEach((m, j) => pages.set(batch[j], m));
    }
  };
  await read(urls);
  // A URL no page has as it stands may name a section of the page before its "#".
  await read(urls.filter((u) => !pages.get(u) && pageOf(u) !== u).map(pageOf));
  const out = new Map<string, Found>();
  for (const url of urls) {
    if (pages.get(url)) {
      out.set(url, { ok: true });
      continue;
    }
    const page = pageOf(url), meta = pages.get(page);
    if (page === url || !meta) {
      out.set(url, { ok: false, reason: "page_not_found", page });
      continue;
    }
    const fragment = url.slice(page.length + 1);
    const anchors = (meta.sections ?? []).map((x) => x.anchor).filter(Boolean);
    out.set(
      url,
      anchors.some((a) => namesAnchor(a, fragment))
        ? { ok: true }
        : { ok: false, reason: "section_not_found", page, anchors },
    );
  }
  return out;
}

/** A refusal of an entry's target, in words naming the entry. */
function refusal(c: Curation, verb: "pins" | "hides", url: string, found: Found): string {
  if (found.ok) return "";
  const start = `The curation for “${c.query}” ${verb} ${url}, but`;
  if (found.reason === "page_not_found") return `${start} the site has no page ${found.page}.`;
  const some = found.anchors.slice(0, NAMED_ANCHORS).map((a) => `#${a}`).join(", ");
  return `${start} ${found.page} has no section #${url.slice(found.page.length + 1)}` +
    (some ? ` (its sections: ${some}${found.anchors.length > NAMED_ANCHORS ? ", …" : ""}).` : ".");
}

/** A pin the search skips (or, for a section, links the top of its page), in the owner's words. */
function warning(c: Curation, url: string, found: Found): PinWarning | null {
  if (found.ok) return null;
  const message = found.reason === "page_not_found"
    ? `The pin of ${url} for “${c.query}” is skipped: the site has no such page.`
    : `The pin of ${url} for “${c.query}” links the top of ${found.page}: ` +
      `the page has no such section.`;
  return { curation: c.id, query: c.query, url, reason: found.reason, message };
}

/**
 * Checks a list's targets against the site's pages. A section no stored curation names yet
 * (not in `known`) must be there, else a 400 naming the entry. Warnings: the pins whose page
 * or section the site lacks, all of them (`all`) or those not in `known`. A hide of a whole
 * page is never looked up: hiding a page that is not there changes nothing.
 */
export async function checkTargets(
  s: Services,
  site: string,
  list: Curation[],
  o: { known: ReadonlySet<string>; all: boolean },
): Promise<PinWarning[]> {
  const fresh = (url: string) => !o.known.has(url);
  const section = (url: string) => pageOf(url) !== url;
  const warned = (url: string) => o.all || fresh(url);
  const found = await lookUp(s, site, [
    ...new Set(list.flatMap((c) => [
      ...c.pin.filter(warned),
      ...c.hide.filter((u) => section(u) && fresh(u)),
    ])),
  ]);
  list.forEach((c, i) => {
    for (const [field, verb] of [["pin", "pins"], ["hide", "hides"]] as const) {
      c[field].forEach((url, j) => {
        const f = found.get(url);
        if (!f || f.ok || !section(url) || !fresh(url)) return;
        throw invalid(`curations[${i}].${field}[${j}]`, refusal(c, verb, url, f));
      });
    }
  });
  return list.flatMap((c) =>
    c.pin.filter(warned).flatMap((url) => {
      const f = found.get(url);
      return (f && warning(c, url, f)) ?? [];
    })
  );
}

/** Every URL a list of curations pins or hides. */
export const targetsOf = (list: Curation[]) => new Set(list.flatMap((c) => [...c.pin, ...c.hide]));
