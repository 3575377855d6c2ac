/**
 * The named-heading check over many sites: heading words are numbered once per language for
 * the whole process (query/heading_numbers.ts) and each site keeps only its pages' lines
 * (query/heading_words.ts). Sites must rank as each would alone, in any order, across a
 * numbering that starts over, and what is held must stay bounded and counted per site.
 */
import assert from "node:assert/strict";
import { addDoc, createSiteDb, docAt, rank, type SiteDb } from "../../lib/search/engine/mod.ts";
import { keptHeadingsBytes } from "../../lib/search/engine/query/heading_words.ts";
import {
  formMask,
  HeadingNumbers,
  headingNumbersBytes,
} from "../../lib/search/engine/query/heading_numbers.ts";
import { terms } from "../../lib/search/engine/analysis/tokens.ts";
import { doc, type Page, site } from "./sites.ts";
import { seeded } from "../fixtures/seeded.ts";

const urls = (db: SiteDb, q: string) => rank(db, q).ids.map((i) => docAt(db, i).id);

/** A manual: chapters that use common words, one tool's page, one page about usage. */
const manual = (): Page[] => [
  ...Array.from({ length: 12 }, (_, i) => ({
    id: `/manual/chapter${i}`,
    title: `Chapter ${i}`,
    body: "Every program reads files. The program writes files; disk usage grows. ".repeat(4),
    sections: [`${i}. Chapter ${i}`, `${i}.1 Files and errors`],
  })),
  {
    id: "/manual/tools",
    title: "Manipulating catalogs",
    body: "The frobctl program merges catalogs. frobctl takes options. " +
      "The grepctl program searches catalogs for a pattern. ".repeat(3) +
      "Every program reads catalogs in order and writes them back. ".repeat(20),
    sections: [
      "9. Manipulating catalogs",
      "9.1 Invoking the frobctl Program",
      "9.2 Invoking the grepctl Program",
    ],
  },
  {
    id: "/manual/languages",
    title: "Other programming languages",
    body: "Usage notes for each program. Program usage differs by language; the usage " +
      "of a program is shown with --help. Usage: program [option]. ".repeat(3),
    sections: ["15. Other programming languages", "15.1 Usage notes"],
  },
];

/** Topic pages that mention settings, one setting with a heading of its own, and the list. */
const settings = (): Page[] => [
  ...Array.from({ length: 12 }, (_, i) => ({
    id: `/topics/topic${i}`,
    title: `Topic ${i}`,
    body: `Topic ${i} has a setting or two. Each setting has a default. `.repeat(3),
    sections: [`Topic ${i}`, "Settings", "Files and errors"],
  })),
  {
    id: "/topics/email",
    title: "Sending e-mail",
    body: "Mail goes through the host FROB_HOST names. This setting defaults to localhost.",
    sections: ["Sending e-mail", "FROB_HOST", "FROB_PORT"],
  },
  {
    id: "/topics/settings",
    title: "Settings",
    body: "Every setting, with its default. FROB_HOST setting: see e-mail. The setting " +
      "FROB_PORT. A setting is read once. Setting names are upper case. Usage notes. ".repeat(3),
    sections: ["Settings", "Built-in settings reference", "Program usage notes"],
  },
];

const manualQueries = ["frobctl program usage", "grepctl program", "usage notes", "files"];
const settingsQueries = ["FROB_HOST setting", "FROB_PORT", "settings reference", "usage notes"];

Deno.test("heading numbers - sites sharing heading words rank as each does alone, in whatever order they are searched", () => {
  // Each site searched through on its own, then fresh copies searched in turn, query by query.
  const alone = (pages: Page[], qs: string[]) => {
    const db = site(pages);
    return qs.map((q) => urls(db, q));
  };
  const manualAlone = alone(manual(), manualQueries);
  const settingsAlone = alone(settings(), settingsQueries);
  // The heading names the query: the tool's page and the setting's page come first.
  assert.equal(manualAlone[0][0], "/manual/tools");
  assert.equal(settingsAlone[0][0], "/topics/email");
  const a = site(manual()), b = site(settings());
  for (let i = 0; i < manualQueries.length; i++) {
    assert.deepEqual(urls(b, settingsQueries[i]), settingsAlone[i], settingsQueries[i]);
    assert.deepEqual(urls(a, manualQueries[i]), manualAlone[i], manualQueries[i]);
  }
  // Asked again, from the lines each site kept.
  assert.deepEqual(manualQueries.map((q) => urls(a, q)), manualAlone);
  assert.deepEqual(settingsQueries.map((q) => urls(b, q)), settingsAlone);
});

Deno.test("heading numbers - a word judged for one site's query is judged afresh for the next query, of any site", () => {
  // A word the check cannot tell from the second query's by their forms' bits alone.
  const bits = (w: string) => formMask(terms(w, "en"));
  const twin = Array.from({ length: 2000 }, (_, i) => `brew${i}`)
    .find((w) => bits(w) === bits("kettle"))!;
  assert.ok(twin, "some word shares the kettle's bit");
  const en = HeadingNumbers.of("en"), kettle = en.number("Kettle");
  const query = (...words: string[]) => {
    const forms = new Set(words.flatMap((w) => terms(w, "en")));
    return [forms, formMask(forms)] as const;
  };
  // One site's query holds "kettle": the heading word is one of its words.
  en.begin();
  assert.equal(en.ofQuery(kettle, ...query("kettle", "descaling")), true);
  // The next query (another site's) does not, though its bits cover the kettle's.
  en.begin();
  assert.equal(en.ofQuery(kettle, ...query(twin, "descaling")), false);
  en.begin();
  assert.equal(en.ofQuery(kettle, ...query("kettles")), true, "its forms, as the query's");
});

/** German topic pages that mention settings, the accounts' page, and the list of settings. */
const german = (): Page[] => [
  ...Array.from({ length: 12 }, (_, i) => ({
    id: `/de/thema${i}`,
    title: `Thema ${i}`,
    body: `Thema ${i} hat eine Einstellung oder zwei. Jede Einstellung hat einen Standardwert. `
      .repeat(3),
    sections: [`Thema ${i}`, "Einstellungen"],
  })),
  {
    id: "/de/konten",
    title: "Verwaltung",
    body: "Benutzerkonten liegen in der Datenbank. Diese Einstellung ist leer.",
    sections: ["Verwaltung", "Benutzerkonten", "Kennwörter"],
  },
  {
    id: "/de/einstellungen",
    title: "Einstellungen",
    body: "Jede Einstellung mit ihrem Standardwert. Einstellung der Benutzerkonten: siehe " +
      "Verwaltung. Die Einstellung Kennwörter. Eine Einstellung wird einmal gelesen. ".repeat(3),
    sections: ["Einstellungen", "Eingebaute Einstellungen", "Standardwerte"],
  },
];

Deno.test("heading numbers - the same heading in sites of two languages is read in each site's own language", () => {
  // An English site reads the German heading first, where its word is stemmed otherwise
  // ("benutzerkonten", not "benutzerkont" as in German).
  const english = site([
    {
      id: "/notes/german",
      title: "German notes",
      body: "Our German manual has a chapter on Benutzerkonten, one setting of many. ",
      sections: ["Benutzerkonten", "Kennwörter"],
    },
    ...settings(),
  ]);
  assert.equal(urls(english, "Benutzerkonten setting")[0], "/notes/german");
  // The German page's heading names the German query's rare word: its page comes first.
  const db = createSiteDb();
  for (const p of german()) addDoc(db, { ...doc(p), lang: "de" });
  assert.equal(urls(db, "Benutzerkonten Einstellung")[0], "/de/konten");
});

/** Deterministic words of `n` letters, none of them English (a small generator). */
function longWords(count: number, n: number, seed: number): string[] {
  const rand = seeded(seed);
  return Array.from({ length: count }, () => {
    let w = "";
    for (let i = 0; i < n; i++) w += String.fromCharCode(97 + Math.floor(rand() * 26));
    return w;
  });
}

Deno.test("heading numbers - when the shared numbering starts over, every site's results stay right and what is held stays bounded", () => {
  const a = site(manual()), b = site(settings());
  const before = {
    a: manualQueries.map((q) => urls(a, q)),
    b: settingsQueries.map((q) => urls(b, q)),
  };
  assert.equal(before.a[0][0], "/manual/tools");
  const bytesA = keptHeadingsBytes(a);
  assert.ok(bytesA > 0, "a site's kept lines are counted with its index");
  // Another site with the same pages counts the same, and numbers no word anew.
  const shared = headingNumbersBytes(), twin = site(manual());
  assert.deepEqual(manualQueries.map((q) => urls(twin, q)), before.a);
  assert.equal(keptHeadingsBytes(twin), bytesA);
  assert.equal(headingNumbersBytes(), shared, "the twin's words were numbered already");

  // A site of very long distinct heading words, searched page by page: past its share of the
  // shared numbering it numbers its own, which starts over at its bound (half a million
  // characters, passed within these pages); the shared numbering never does for it.
  const en = HeadingNumbers.of("en"), generation = en.generation;
  const pages = Array.from({ length: 12 }, (_, i) => {
    const words = longWords(100, 1_500, i + 1);
    return { id: `/big/${i}`, title: `Big ${i}`, body: words[0], sections: words };
  });
  const big = site(pages);
  for (const p of pages) {
    assert.deepEqual(urls(big, p.body), [p.id]);
    assert.ok(headingNumbersBytes() <= 8 * 1048576, `${headingNumbersBytes()} bytes shared`);
  }
  assert.equal(en.generation, generation, "the shared numbering did not start over");
  assert.ok(keptHeadingsBytes(big) > 0, "its own numbering is counted with its index");
  // The other sites keep their lines and rank as before.
  assert.deepEqual(settingsQueries.map((q) => urls(b, q)), before.b);
  assert.deepEqual(manualQueries.map((q) => urls(a, q)), before.a);
  assert.deepEqual(manualQueries.map((q) => urls(twin, q)), before.a);
  assert.equal(keptHeadingsBytes(a), bytesA, "the same lines are held");
  assert.ok(headingNumbersBytes() <= 8 * 1048576);
});
