/**
 * Every language's table, for the server (the islands results page), the build (the JSON files
 * the browser scripts load on demand) and the tests. Browser bundles import index.ts, not this.
 */
import { ar } from "./ar.ts";
import { de } from "./de.ts";
import { en, type Table } from "./en.ts";
import { es } from "./es.ts";
import { fr } from "./fr.ts";
import { type Lang, LANGS, tablePath } from "./index.ts";
import { it } from "./it.ts";
import { ja } from "./ja.ts";
import { ko } from "./ko.ts";
import { nl } from "./nl.ts";
import { pl } from "./pl.ts";
import { pt } from "./pt.ts";
import { ru } from "./ru.ts";
import { sv } from "./sv.ts";
import { zh } from "./zh.ts";

/** The table of each language (a language of LANGS without one is a type error). */
export const TABLES: Readonly<Record<Lang, Table>> = {
  en,
  de,
  fr,
  es,
  it,
  nl,
  pt,
  pl,
  sv,
  ja,
  zh,
  ko,
  ru,
  ar,
};

/** The files the build writes under static/: `[path, JSON]` for each language but English. */
export function staticFiles(): [string, string][] {
  return LANGS.filter((l) => l !== "en").map((l) => [tablePath(l), JSON.stringify(TABLES[l])]);
}
