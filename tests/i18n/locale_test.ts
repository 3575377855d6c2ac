/**
 * Choosing a page's language, filling messages (plurals and numbers through Intl), and loading
 * a language's table on demand over real HTTP, as widget.js and results.js will.
 */
import assert from "node:assert/strict";
import { staticFiles, TABLES } from "../../widget/i18n/all.ts";
import {
  en,
  format,
  type Lang,
  LANGS,
  loadLocale,
  locale,
  number,
  pickLang,
  plural,
  toTable,
} from "../../widget/i18n/index.ts";

const loc = (lang: Lang) => locale(lang, TABLES[lang]);
const FSI = "\u2068", PDI = "\u2069";

Deno.test("i18n - a page's language comes from data-lang, then <html lang>, then the site", () => {
  assert.equal(pickLang("de-DE", null, null), "de");
  assert.equal(pickLang("pt-BR", undefined, "fr"), "pt");
  assert.equal(pickLang("zh-Hant-TW", "", ""), "zh");
  assert.equal(pickLang("pt_PT"), "pt");
  assert.equal(pickLang(" JA "), "ja");
  assert.equal(pickLang("en", "ar", "de"), "ar", "data-lang is set for us and wins");
  assert.equal(pickLang("fi", null, "sv"), "sv", "a language without a table falls through");
  assert.equal(pickLang("", "", "ko-KR"), "ko");
  assert.equal(pickLang("fi", "x-klingon", "tlh"), "en");
  assert.equal(pickLang(), "en");
  assert.equal(pickLang("-", "__", "constructor"), "en");
});

Deno.test("i18n - counted messages take the form and the digits of the language", () => {
  const q = { query: "tea" };
  assert.equal(plural(loc("en"), "resultsFor", 1, q), "1 result for “tea”");
  assert.equal(plural(loc("en"), "resultsFor", 1234, q), "1,234 results for “tea”");
  assert.equal(plural(loc("de"), "resultsFor", 1234, q), "1.234 Ergebnisse für „tea“");
  const ru = (n: number) => plural(loc("ru"), "resultsAvailable", n);
  assert.equal(ru(1), "Найден 1 результат.");
  assert.equal(ru(3), "Найдено 3 результата.");
  assert.equal(ru(5), "Найдено 5 результатов.");
  assert.equal(ru(21), "Найден 21 результат.");
  assert.equal(ru(1.5), "Найдено 1,5 результата.");
  const pl = (n: number) => plural(loc("pl"), "resultsAvailable", n);
  assert.deepEqual([pl(1), pl(2), pl(5), pl(22)], [
    "Znaleziono 1 wynik.",
    "Znaleziono 2 wyniki.",
    "Znaleziono 5 wyników.",
    "Znaleziono 22 wyniki.",
  ]);
  assert.equal(
    plural(loc("fr"), "resultsFor", 1_000_000, q),
    `${number("fr", 1_000_000)} de résultats pour «\u00a0tea\u00a0»`,
  );
  assert.equal(plural(loc("fr"), "resultsFor", 0, q), "0 résultat pour «\u00a0tea\u00a0»");
  assert.equal(plural(loc("ja"), "resultsFor", 1, q), "「tea」の検索結果：1 件");
  const ar = (n: number) => plural(loc("ar"), "resultsAvailable", n);
  assert.deepEqual([ar(0), ar(1), ar(2)], [
    "لا توجد نتائج.",
    "تتوفر نتيجة واحدة.",
    "تتوفر نتيجتان.",
  ]);
  assert.equal(ar(3), `تتوفر ${number("ar", 3)} نتائج.`);
  assert.equal(ar(11), `تتوفر ${number("ar", 11)} نتيجة.`);
  assert.equal(ar(100), `تتوفر ${number("ar", 100)} نتيجة.`);
});

Deno.test("i18n - placeholders are filled; a query is isolated in right-to-left text only", () => {
  assert.equal(format(loc("en"), "pageOf", { page: 2, pages: 12_000 }), "Page 2 of 12,000");
  assert.equal(format(loc("de"), "pageOf", { page: 2, pages: 12_000 }), "Seite 2 von 12.000");
  assert.equal(format(loc("de"), "search"), "Suchen");
  assert.equal(
    format(loc("ar"), "noResultsFor", { query: "Hello world" }),
    `لا توجد نتائج عن «${FSI}Hello world${PDI}».`,
  );
  assert.equal(format(loc("ar"), "page", { page: 3 }), `الصفحة ${number("ar", 3)}`);
  assert.equal(loc("ar").dir, "rtl");
  assert.equal(loc("he" as Lang).dir, "rtl");
  assert.equal(loc("ja").dir, "ltr");
  // A value left out stays visible, so a test of the caller catches it.
  assert.equal(format(loc("en"), "noResultsFor"), "No results for “{query}”.");
  // A value is inserted as it is: "{page}" in a query is not filled a second time.
  assert.equal(
    format(loc("en"), "sourceN", { n: 1, title: "{n} $& {title}" }),
    "Source 1: {n} $& {title}",
  );
});

Deno.test("i18n - a table read from JSON keeps what is well formed and English for the rest", () => {
  assert.deepEqual(toTable(null), en);
  assert.deepEqual(toTable("de"), en);
  assert.deepEqual(toTable([1, 2]), en);
  for (const lang of LANGS) {
    assert.deepEqual(toTable(JSON.parse(JSON.stringify(TABLES[lang]))), TABLES[lang]);
  }
  const mixed = toTable({
    search: "Suchen",
    close: 42,
    clear: "",
    next: { other: "Weiter" },
    resultsFor: { one: "{count} Ergebnis", other: "{count} Ergebnisse", bogus: "x" },
    seeAll: { one: "nur eins" }, // no `other`: English's forms
    resultsAvailable: "not forms",
    extra: "dropped",
  });
  assert.equal(mixed.search, "Suchen");
  assert.equal(mixed.close, en.close);
  assert.equal(mixed.clear, en.clear);
  assert.equal(mixed.next, en.next);
  assert.deepEqual(mixed.resultsFor, { one: "{count} Ergebnis", other: "{count} Ergebnisse" });
  assert.deepEqual(mixed.seeAll, en.seeAll);
  assert.deepEqual(mixed.resultsAvailable, en.resultsAvailable);
  assert.ok(!("extra" in mixed));
  assert.deepEqual(Object.keys(mixed).sort(), Object.keys(en).sort());
});

/** A static server for the files the build writes, counting requests, on 127.0.0.1:0. */
function serveTables(files: Map<string, string>, status = 200) {
  const asked: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const path = new URL(req.url).pathname.slice(1);
    asked.push(path);
    const body = files.get(path);
    if (status !== 200 || body === undefined) return new Response("not found", { status: 404 });
    return new Response(body, { headers: { "Content-Type": "application/json" } });
  });
  return { origin: `http://127.0.0.1:${server.addr.port}`, asked, close: () => server.shutdown() };
}

Deno.test("i18n - a language's table is fetched once from the API origin; English needs none", async () => {
  const srv = serveTables(new Map(staticFiles()));
  try {
    const english = await loadLocale("en", srv.origin);
    assert.deepEqual(english, locale("en"));
    const [de, again] = await Promise.all([
      loadLocale("de", srv.origin),
      loadLocale("de", srv.origin),
    ]);
    assert.equal(de, again);
    assert.deepEqual(de, locale("de", TABLES.de));
    const ar = await loadLocale("ar", srv.origin);
    assert.deepEqual(ar, { lang: "ar", dir: "rtl", table: TABLES.ar });
    assert.deepEqual(srv.asked.sort(), ["i18n/ar.json", "i18n/de.json"]);
  } finally {
    await srv.close();
  }
});

Deno.test("i18n - a table that cannot be had (404, not JSON, no server) means English", async () => {
  const missing = serveTables(new Map(), 404);
  const garbage = serveTables(new Map([["i18n/fr.json", "<html>oops"]]));
  try {
    assert.deepEqual(await loadLocale("fr", missing.origin), locale("en"));
    assert.deepEqual(await loadLocale("fr", garbage.origin), locale("en"));
    assert.deepEqual(missing.asked, ["i18n/fr.json"]);
  } finally {
    await missing.close();
    await garbage.close();
  }
  const gone = serveTables(new Map());
  await gone.close();
  assert.deepEqual(await loadLocale("sv", gone.origin), locale("en"));
});

async function gzipSize(text: string): Promise<number> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

Deno.test("i18n - each language's file is small and reads back as its table", async () => {
  const files = staticFiles();
  assert.deepEqual(
    files.map(([p]) => p).sort(),
    LANGS.filter((l) => l !== "en").map((l) => `i18n/${l}.json`).sort(),
  );
  for (const [path, json] of files) {
    const lang = path.slice(5, -5) as Lang;
    assert.deepEqual(JSON.parse(json), TABLES[lang], path);
    assert.ok(await gzipSize(json) < 2_500, `${path}: ${await gzipSize(json)} bytes gzipped`);
  }
});

Deno.test("i18n - the module with English, bundled and minified, stays under 2.5 KB gzipped", async () => {
  const out = await Deno.makeTempFile({ suffix: ".js" });
  try {
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        "--no-config",
        "--minify",
        "--platform=browser",
        "--format=iife",
        "-o",
        out,
        new URL("../../widget/i18n/index.ts", import.meta.url).pathname,
      ],
      stdout: "null",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    assert.equal(code, 0, new TextDecoder().decode(stderr));
    const js = await Deno.readTextFile(out);
    assert.ok(!js.includes("Suchen"), "no other language's table is bundled");
    const size = await gzipSize(js);
    assert.ok(size < 2_500, `${size} bytes gzipped`);
  } finally {
    await Deno.remove(out);
  }
});
