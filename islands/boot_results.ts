/// <reference lib="dom" />
/** The results page's bundle: takes the strings the server rendered with, hydrates its islands. */
import { setLocale } from "../widget/client/strings.ts";
import { locale, pickLang, toTable } from "../widget/i18n/index.ts";
import { hydrateIslands, STRINGS_ID } from "./hydrate.ts";
import { RESULTS_ISLANDS } from "./results_islands.ts";

const json = document.getElementById(STRINGS_ID)?.textContent;
const lang = pickLang(document.documentElement.lang);
setLocale(locale(lang, json ? toTable(JSON.parse(json)) : undefined));
hydrateIslands(RESULTS_ISLANDS);
