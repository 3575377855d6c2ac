/**
 * The tables as Chromium draws them: the browser's own Intl must pick the same plural forms and
 * digits as the tables were checked against here, and Arabic must lay out right to left.
 */
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { browserSuite, CHROMIUM_ARGS, loadPlaywright } from "../widget/browser_helpers.ts";
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

const COUNTS = [0, 1, 2, 3, 5, 11, 21, 100, 1234, 1_000_000, 1.5];
const VARS = { query: "Hello world", corrected: "Hello", page: 2, pages: 1234, n: 1, title: "T" };

/** Every message of a language, drawn with `fmt` and `plur` (ours, here or in the browser). */
function drawAll(
  lang: Lang,
  fmt: (key: TextKey) => string,
  plur: (key: PluralKey, n: number) => string,
): string[] {
  return Object.entries(en).flatMap(([key, v]) =>
    typeof v === "string"
      ? [fmt(key as TextKey)]
      : COUNTS.map((n) => `${lang}:${n}:` + plur(key as PluralKey, n))
  );
}

/** index.ts bundled for the browser, exposed as `window.i18n`. */
async function bundle(): Promise<string> {
  const dir = await Deno.makeTempDir();
  try {
    const entry = `${dir}/entry.ts`;
    const index = new URL("../../widget/i18n/index.ts", import.meta.url).href;
    await Deno.writeTextFile(
      entry,
      `import * as i18n from ${JSON.stringify(index)};\n(globalThis as any).i18n = i18n;\n`,
    );
    const out = `${dir}/out.js`;
    const { code, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "bundle",
        "--quiet",
        "--no-config",
        "--platform=browser",
        "--format=iife",
        "-o",
        out,
        entry,
      ],
      stdout: "null",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    assert.equal(code, 0, new TextDecoder().decode(stderr));
    return await Deno.readTextFile(out);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

browserSuite(
  "i18n - Chromium draws every language's messages as Deno does, right to left for Arabic only",
  async (_t, executablePath) => {
    const script = await bundle();
    const { chromium } = await loadPlaywright();
    const browser: Browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      await page.setContent("<!doctype html><html><body></body></html>");
      await page.addScriptTag({ content: script });
      for (const lang of LANGS) {
        const table = TABLES[lang];
        const categories = await page.evaluate(
          (l) => new Intl.PluralRules(l).resolvedOptions().pluralCategories,
          lang,
        );
        assert.deepEqual([...categories].sort(), Object.keys(table.resultsFor).sort(), lang);

        const loc = locale(lang, table);
        const here = drawAll(
          lang,
          (k) => format(loc, k, VARS),
          (k, n) => plural(loc, k, n, VARS),
        );
        const there = await page.evaluate(
          ({ lang, table, vars, counts, keys }) => {
            // deno-lint-ignore no-explicit-any
            const i = (globalThis as any).i18n;
            const loc = i.locale(lang, i.toTable(table));
            const box = document.createElement("div");
            box.lang = lang;
            box.dir = loc.dir;
            const lines = keys.flatMap(([key, counted]: [string, boolean]) =>
              counted
                ? counts.map((n: number) => `${lang}:${n}:` + i.plural(loc, key, n, vars))
                : [i.format(loc, key, vars)]
            );
            for (const line of lines) {
              box.appendChild(document.createElement("p")).textContent = line;
            }
            document.body.replaceChildren(box);
            return {
              lines,
              text: box.innerText,
              direction: getComputedStyle(box.firstElementChild!).direction,
            };
          },
          {
            lang,
            table,
            vars: VARS,
            counts: COUNTS,
            keys: Object.entries(en).map(([k, v]) =>
              [k, typeof v !== "string"] as [string, boolean]
            ),
          },
        );
        assert.deepEqual(there.lines, here, lang);
        assert.equal(there.direction, lang === "ar" ? "rtl" : "ltr", lang);
        assert.deepEqual(englishLeaks(there.text, lang), [], lang);
      }
    } finally {
      await browser.close();
    }
  },
);
