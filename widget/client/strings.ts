/// <reference lib="dom" />
/**
 * The visitor's language in the browser client: which table the page gets (widget/i18n/), and
 * every message widget.js, results.js and the islands results page draw, through it.
 */
import {
  format,
  type Lang,
  LANGS,
  loadLocale,
  type Locale,
  locale,
  pickLang,
  plural,
  type PluralKey,
  type TextKey,
  type Vars,
} from "../i18n/index.ts";
import type { Api } from "./search.ts";

let current: Locale = locale("en");

/** The locale every later message comes from. */
export const currentLocale = () => current;

/** Makes `loc` the locale of every later message. */
export function setLocale(loc: Locale): void {
  current = loc;
}

/** Runs `fn` with `loc` as the locale (the server rendering a page), then restores the last. */
export function withLocale<T>(loc: Locale, fn: () => T): T {
  const before = current;
  current = loc;
  try {
    return fn();
  } finally {
    current = before;
  }
}

/** A plain message with its `{name}` values. */
export const t = (key: TextKey, vars?: Vars) => format(current, key, vars);

/** A counted message in the form `n` takes in the language. */
export const tn = (key: PluralKey, n: number, vars?: Vars) => plural(current, key, n, vars);

/** True when a language tag names a language we have a table for. */
const known = (tag: string | null | undefined) =>
  (LANGS as readonly string[]).includes(String(tag ?? "").trim().split(/[-_]/)[0].toLowerCase());

/**
 * The page's language for a script: `data-lang` on its tag, else the host page's `<html lang>`,
 * else the site's default (GET /api/site, asked only then); its table loaded and made current.
 */
export async function useLocaleOf(api: Api, dataLang: string | undefined): Promise<Locale> {
  const html = document.documentElement.lang;
  let lang: Lang;
  if (known(dataLang) || known(html)) lang = pickLang(html, dataLang);
  else lang = pickLang(null, null, (await api.site().catch(() => null))?.lang);
  setLocale(await loadLocale(lang, api.origin));
  return current;
}

/** The line a visitor reads for a failed search (an ApiFailure, or the server's error envelope). */
export function friendly(err: unknown): string {
  const f = (err ?? {}) as { status?: unknown; code?: unknown };
  switch (f.code) {
    case "SEARCH_RATE_LIMIT_EXCEEDED":
      return t("errBusy");
    case "MONTHLY_SEARCH_QUOTA_EXCEEDED":
      return t("errQuota");
    case "NETWORK_ERROR":
      return t("errNetwork");
    case "INVALID_PARAMETER":
      return t("errInvalid");
  }
  if (f.status === 401 || f.status === 403) return t("errUnavailable");
  return t("errServer");
}

/** The line a visitor reads when an answer cannot be shown (the results stay). */
export function answerFailure(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === "AI_CREDITS_EXHAUSTED") return t("aiPaused");
  if (code === "SUMMARY_RATE_LIMIT_EXCEEDED") return t("aiRateLimit");
  return t("aiFailed");
}

/** `lang` and `dir` for the element a script draws in. */
export const langAttrs = () => ({ lang: current.lang, dir: current.dir });
