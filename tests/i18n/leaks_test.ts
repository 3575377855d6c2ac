/** The English-leak finder the per-language browser tests use, and every table run through it. */
import assert from "node:assert/strict";
import { TABLES } from "../../widget/i18n/all.ts";
import {
  en,
  format,
  type Lang,
  LANGS,
  locale,
  plural,
  type PluralKey,
  type TextKey,
} from "../../widget/i18n/index.ts";
import { englishLeaks } from "./leaks.ts";

const VARS = { query: "xyzzy", corrected: "xyzzy", page: 2, pages: 3, n: 1, title: "T" };

/** Every message of a language as a visitor would read it, with counts 0, 1, 2, 5, 21, 1000000. */
function everything(lang: Lang): string {
  const loc = locale(lang, TABLES[lang]);
  const out: string[] = [];
  for (const [key, value] of Object.entries(en)) {
    if (typeof value === "string") out.push(format(loc, key as TextKey, VARS));
    else {
      for (const n of [0, 1, 2, 5, 21, 1_000_000]) {
        out.push(plural(loc, key as PluralKey, n, VARS));
      }
    }
  }
  return out.join("\n");
}

Deno.test("i18n - no language's messages, as drawn, hold a piece of an English message", () => {
  for (const lang of LANGS) assert.deepEqual(englishLeaks(everything(lang), lang), [], lang);
});

Deno.test("i18n - the leak finder names English pieces, not words a language spells alike", () => {
  assert.deepEqual(englishLeaks("Seite 2 von 3 · Search this site…", "de"), ["Search this site"]);
  assert.deepEqual(englishLeaks("12 results for „Tee“", "de"), ["results for"]);
  assert.deepEqual(englishLeaks("Was this answer helpful? Ja Nein", "de"), [
    "Was this answer helpful",
  ]);
  assert.deepEqual(englishLeaks("検索 Close", "ja"), ["Close"]);
  // French writes "Page" and "Sources" too; Dutch "Filters"; Spanish "No".
  assert.deepEqual(englishLeaks("Page 2 sur 3 · Sources · Document", "fr"), []);
  assert.deepEqual(englishLeaks("Filters wissen · Filters", "nl"), []);
  assert.deepEqual(englishLeaks("Sí · No", "es"), []);
  assert.deepEqual(englishLeaks("Sí · No", "de"), ["No"]);
  // Whole words only: "Nochmal" is not "No", "Asked" is not "Ask".
  assert.deepEqual(englishLeaks("Nochmal Asked Closed", "de"), []);
  assert.deepEqual(englishLeaks("Search", "en"), []);
});
