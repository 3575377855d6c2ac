/**
 * The visitor strings' tables, checked against English and against Intl: every key in every
 * language, the same placeholders, the plural forms the language has, nothing left in English.
 */
import assert from "node:assert/strict";
import { en, type Plural } from "../../widget/i18n/en.ts";
import { TABLES } from "../../widget/i18n/all.ts";
import { isRtl, LANGS } from "../../widget/i18n/index.ts";
import { SAME_AS_ENGLISH } from "./leaks.ts";

const OTHERS = LANGS.filter((l) => l !== "en");
const KEYS = Object.keys(en).sort() as (keyof typeof en)[];

const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
/** Each message as a list of forms: one for a plain message, one per category for a plural. */
const forms = (v: string | Plural): [string, string][] =>
  typeof v === "string" ? [["", v]] : Object.entries(v) as [string, string][];

/** Plural categories that hold a single whole number in a language (Arabic's zero, one, two). */
function singleNumberCategories(lang: string): Set<string> {
  const rules = new Intl.PluralRules(lang);
  const seen = new Map<string, number>();
  for (let n = 0; n <= 10_000; n++) {
    const c = rules.select(n);
    seen.set(c, (seen.get(c) ?? 0) + 1);
  }
  return new Set([...seen].filter(([, count]) => count === 1).map(([c]) => c));
}

Deno.test("i18n - every language of the fourteen has a table with exactly English's keys", () => {
  assert.deepEqual(
    [...LANGS].sort(),
    ["ar", "de", "en", "es", "fr", "it", "ja", "ko", "nl", "pl", "pt", "ru", "sv", "zh"],
  );
  for (const lang of LANGS) {
    assert.deepEqual(Object.keys(TABLES[lang]).sort(), KEYS, lang);
  }
});

Deno.test("i18n - each message carries English's placeholders, no more and no fewer", () => {
  for (const lang of OTHERS) {
    const single = singleNumberCategories(lang);
    for (const key of KEYS) {
      const english = en[key];
      const want = placeholders(typeof english === "string" ? english : english.other);
      for (const [category, text] of forms(TABLES[lang][key])) {
        const got = placeholders(text);
        // "نتيجتان" (two results) or "one result" names its number: {count} may go there.
        const expected = category && single.has(category) && !got.includes("count")
          ? want.filter((p) => p !== "count")
          : want;
        assert.deepEqual(got, expected, `${lang}.${key}${category && "." + category}: ${text}`);
      }
    }
  }
  for (const key of KEYS) {
    const english = en[key];
    if (typeof english === "string") continue;
    for (const [category, text] of forms(english)) {
      assert.deepEqual(placeholders(text), placeholders(english.other), `en.${key}.${category}`);
    }
  }
});

Deno.test(
  "i18n - a counted message has exactly the plural categories Intl.PluralRules gives its language",
  () => {
    for (const lang of LANGS) {
      const categories = new Intl.PluralRules(lang).resolvedOptions().pluralCategories;
      assert.ok(categories.includes("other"), lang);
      for (const key of KEYS) {
        const value = TABLES[lang][key];
        if (typeof en[key] === "string") {
          assert.equal(typeof value, "string", `${lang}.${key} is plain in English`);
          continue;
        }
        assert.equal(typeof value, "object", `${lang}.${key} is counted in English`);
        assert.deepEqual(Object.keys(value).sort(), [...categories].sort(), `${lang}.${key}`);
      }
    }
    // The languages that need them have them: Russian and Polish few/many, Arabic all six.
    assert.deepEqual(Object.keys(TABLES.ru.resultsFor).sort(), ["few", "many", "one", "other"]);
    assert.equal(Object.keys(TABLES.ar.resultsFor).length, 6);
    assert.deepEqual(Object.keys(TABLES.ja.resultsFor), ["other"]);
  },
);

Deno.test("i18n - no message is left in English but the listed words spelled alike", () => {
  for (const lang of OTHERS) {
    const allowed = new Set<string>(SAME_AS_ENGLISH[lang] ?? []);
    for (const key of KEYS) {
      const english = new Set(forms(en[key]).map(([, t]) => t));
      for (const [category, text] of forms(TABLES[lang][key])) {
        if (allowed.has(key)) continue;
        assert.ok(!english.has(text), `${lang}.${key}${category && "." + category} is English`);
      }
    }
    for (const key of allowed) { // the list stays honest: each entry is in fact the same
      assert.deepEqual(TABLES[lang][key as keyof typeof en], en[key as keyof typeof en], key);
    }
  }
});

Deno.test(
  "i18n - every message ends as English's does: stop, question mark, ellipsis or nothing",
  () => {
    const ending = (s: string) =>
      /…$/.test(s)
        ? "ellipsis"
        : /[?？؟]$/.test(s)
        ? "question"
        : /[.。]$/.test(s)
        ? "stop"
        : "none";
    for (const lang of OTHERS) {
      for (const key of KEYS) {
        const want = ending(forms(en[key])[0][1]);
        for (const [category, text] of forms(TABLES[lang][key])) {
          assert.equal(ending(text), want, `${lang}.${key}${category && "." + category}: ${text}`);
        }
      }
    }
  },
);

Deno.test("i18n - no message is empty, padded with spaces, or holds a stray brace or tag", () => {
  for (const lang of LANGS) {
    for (const key of KEYS) {
      for (const [category, text] of forms(TABLES[lang][key])) {
        const where = `${lang}.${key}${category && "." + category}`;
        assert.ok(text.length > 0 && text === text.trim(), where);
        assert.ok(!/\s{2}/.test(text), `${where} has a double space`);
        assert.ok(!/[<>]/.test(text), `${where} looks like markup`);
        assert.equal(text.replace(/\{\w+\}/g, "").search(/[{}]/), -1, `${where} stray brace`);
      }
    }
  }
});

Deno.test("i18n - of our languages only Arabic is written right to left", () => {
  assert.deepEqual(LANGS.filter(isRtl), ["ar"]);
  assert.equal(isRtl("ar-EG"), true);
  assert.equal(isRtl("AR"), true);
  assert.equal(isRtl("he"), true); // no table, but a page in Hebrew is still right to left
  assert.equal(isRtl("en-GB"), false);
  assert.equal(isRtl(""), false);
});
