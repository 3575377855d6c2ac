/**
 * Visitor strings in the site's language (docs/api.md, "Visitor strings"): which
 * language a page gets, its direction, messages with placeholders, plurals and numbers through
 * `Intl`, and loading a language's table on demand. Browser-safe; imports only en.ts.
 *
 * How it ships (for scripts/build.ts and routes/scripts.ts, which this folder does not own):
 * - widget.js and results.js bundle this module, and with it English (en.ts) only: the other
 *   tables are not imported here, so they stay out of the bundles.
 * - The build writes, for each `[path, json]` of `staticFiles()` (all.ts), the file
 *   `static/<path>` (`i18n/<lang>.json`, one per language but English; 1–2 KB gzipped each).
 * - The script routes serve `/<path>` like `/widget.js` (Access-Control-Allow-Origin: *,
 *   Cache-Control, ETag, gzip), with `Content-Type: application/json`.
 * - A bundle's source hash must cover widget/i18n/ too (sourceHash reads one folder level).
 * - The islands results page is rendered on the server: it takes its table from `TABLES`
 *   (all.ts) and hands it to the islands as a prop, so islands.js carries no tables either.
 *
 * In a script: `const loc = await loadLocale(pickLang(html.lang, tag.dataset.lang, site.lang),
 * apiOrigin)`, then `format(loc, "search")`, `plural(loc, "resultsFor", n, { query })`, and
 * `dir={loc.dir}` on the shadow root's container. A table that fails to load means English.
 */
import { en, type PluralKey, type Table, type TextKey } from "./en.ts";

export { en };
export type { Plural, PluralKey, Table, TextKey } from "./en.ts";

/** The languages with a table, English first (the fallback). */
export const LANGS = [
  "en",
  "de",
  "fr",
  "es",
  "it",
  "nl",
  "pt",
  "pl",
  "sv",
  "ja",
  "zh",
  "ko",
  "ru",
  "ar",
] as const;
export type Lang = typeof LANGS[number];

/** Values for a message's `{name}` placeholders; numbers are written the language's way. */
export type Vars = Readonly<Record<string, string | number>>;

/** A language, its writing direction and its strings. */
export interface Locale {
  readonly lang: Lang;
  readonly dir: "ltr" | "rtl";
  readonly table: Table;
}

/** Languages written right to left (first subtags), whether or not we have their table. */
const RTL = new Set(["ar", "ckb", "dv", "fa", "he", "ps", "sd", "ug", "ur", "yi"]);

/** The first subtag of a language tag, lower-cased (`pt-BR` → `pt`, `zh_Hant` → `zh`). */
const primary = (tag: string | null | undefined) =>
  String(tag ?? "").trim().split(/[-_]/)[0].toLowerCase();

/**
 * The language for a page: the first of `data-lang` on our script tag (set for us, so it
 * wins), the page's `<html lang>`, and the site's default that has a table; else English.
 */
export function pickLang(
  htmlLang?: string | null,
  dataLang?: string | null,
  siteLang?: string | null,
): Lang {
  for (const tag of [dataLang, htmlLang, siteLang]) {
    const lang = primary(tag);
    if ((LANGS as readonly string[]).includes(lang)) return lang as Lang;
  }
  return "en";
}

/** True for a language written right to left (`ar`, `ar-EG`, `he`…). */
export function isRtl(lang: string): boolean {
  return RTL.has(primary(lang));
}

/** A locale from a language and its table (English when none is given). */
export function locale(lang: Lang, table: Table = en): Locale {
  return { lang, dir: isRtl(lang) ? "rtl" : "ltr", table };
}

const numberFormats = new Map<string, Intl.NumberFormat>();
const pluralRules = new Map<string, Intl.PluralRules>();

/** `n` as the language writes numbers (`1.234` in German, `1,234` in English). */
export function number(lang: string, n: number): string {
  let f = numberFormats.get(lang);
  if (!f) numberFormats.set(lang, f = new Intl.NumberFormat(lang));
  return f.format(n);
}

/** The `Intl.PluralRules` category of `n` in a language. */
export function pluralCategory(lang: string, n: number): Intl.LDMLPluralRule {
  let r = pluralRules.get(lang);
  if (!r) pluralRules.set(lang, r = new Intl.PluralRules(lang));
  return r.select(n);
}

/**
 * Fills `{name}` placeholders. In right-to-left text each string value is wrapped in Unicode
 * isolates (FSI…PDI), so a left-to-right query cannot reorder the sentence around it.
 */
function fill(loc: Locale, text: string, vars: Vars): string {
  return text.replace(/\{(\w+)\}/g, (all, name: string) => {
    const v = vars[name];
    if (typeof v === "number") return number(loc.lang, v);
    if (typeof v !== "string") return all; // a missing value shows, so a test catches it
    return loc.dir === "rtl" ? `\u2068${v}\u2069` : v;
  });
}

/** A plain message with its placeholders filled. */
export function format(loc: Locale, key: TextKey, vars: Vars = {}): string {
  return fill(loc, loc.table[key], vars);
}

/** A counted message in the form `n` takes in the language; `{count}` is `n`, formatted. */
export function plural(loc: Locale, key: PluralKey, n: number, vars: Vars = {}): string {
  const forms = loc.table[key];
  const text = forms[pluralCategory(loc.lang, n)] ?? forms.other;
  return fill(loc, text, { ...vars, count: n });
}

/**
 * A table from untrusted JSON: each key of English taken when it has the right shape (a
 * non-empty string, or plural forms with `other`), English for the rest; unknown keys dropped.
 */
export function toTable(data: unknown): Table {
  const src = (data && typeof data === "object" ? data : {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, english] of Object.entries(en)) {
    const v = src[key];
    if (typeof english === "string") {
      out[key] = typeof v === "string" && v ? v : english;
      continue;
    }
    const forms = (v && typeof v === "object" ? v : {}) as Record<string, unknown>;
    const kept = Object.fromEntries(
      ["zero", "one", "two", "few", "many", "other"]
        .filter((c) => typeof forms[c] === "string" && forms[c])
        .map((c) => [c, forms[c]]),
    );
    out[key] = "other" in kept ? kept : english;
  }
  return out as Table;
}

/** Where a language's table is served, relative to the API origin (the build writes it). */
export const tablePath = (lang: Lang) => `i18n/${lang}.json`;

const loading = new Map<string, Promise<Locale>>();

/**
 * The locale for `lang`, its table fetched once per page from the API origin; English at once
 * for `en`, and English when the table cannot be had (offline, blocked, not built).
 */
export function loadLocale(
  lang: Lang,
  origin: string,
  fetcher: typeof fetch = fetch,
): Promise<Locale> {
  if (lang === "en") return Promise.resolve(locale("en"));
  const url = new URL(tablePath(lang), origin + "/").href;
  let p = loading.get(url);
  if (!p) {
    p = fetcher(url, { credentials: "omit" })
      .then(async (r) => {
        if (!r.ok) {
          await r.body?.cancel();
          throw new Error(`${url}: ${r.status}`);
        }
        return locale(lang, toTable(await r.json()));
      })
      .catch(() => locale("en"));
    loading.set(url, p);
  }
  return p;
}
