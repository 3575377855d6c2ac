import assert from "node:assert/strict";
import { docAt, rank, rankingWith, type SiteDb } from "../../lib/search/engine/mod.ts";
import { type Page, site } from "./sites.ts";

const urls = (db: SiteDb, q: string) => rank(db, q).ids.map((i) => docAt(db, i).id);

/** Chapters of a manual that use common words often and name no tool. */
const filler = (n: number): Page[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `/manual/chapter${i}`,
    title: `Chapter ${i}`,
    body: "Every program reads files. The program writes files; disk usage grows. ".repeat(4),
    sections: [`${i}. Chapter ${i}`, `${i}.1 Files and errors`],
  }));

/** A manual: one chapter documents each tool under "Invoking the … Program". */
function manual(): SiteDb {
  return site([
    ...filler(12),
    {
      id: "/manual/tools",
      title: "Manipulating catalogs",
      body: "The frobctl program merges catalogs. frobctl takes options. " +
        "The grepctl program searches catalogs for a pattern. ".repeat(3) +
        "Every program reads catalogs in order and writes them back. ".repeat(20),
      sections: [
        "9. Manipulating catalogs",
        "9.1 Invoking the frobctl Program",
        "9.1.1 Input file location",
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
  ]);
}

Deno.test("rank heading names - a numbered heading that holds a tool's name and its kind names the tool's page, though it lacks the query's last word", () => {
  const db = manual();
  assert.equal(urls(db, "frobctl program usage")[0], "/manual/tools");
  // Spelled as the heading has it, the query still finds the page first.
  assert.equal(urls(db, "frobctl program")[0], "/manual/tools");
});

Deno.test("rank heading names - a heading without the query's rarest word does not name the query", () => {
  // "quuxctl" is named in the tools chapter's text only; a heading there holds "program
  // usage" but not "quuxctl", the word that says which program: the tool's page stays first.
  const db = site([
    ...filler(12),
    {
      id: "/manual/tools",
      title: "Manipulating catalogs",
      body: "Every program reads catalogs. The frobctl program merges them. ".repeat(10) +
        "Also see quuxctl.",
      sections: [
        "9. Manipulating catalogs",
        "9.1 Invoking the frobctl Program",
        "9.2 Program usage notes",
      ],
    },
    {
      id: "/manual/quux",
      title: "The quuxctl tool",
      body: "quuxctl usage: quuxctl [option]. The quuxctl program usage is short. ".repeat(3),
      sections: ["14. The quuxctl tool", "14.1 Options"],
    },
  ]);
  assert.equal(urls(db, "quuxctl program usage")[0], "/manual/quux");
});

/** An FAQ in chapters: each question is a heading; other chapters use the same words. */
function faq(): SiteDb {
  return site([
    {
      id: "/faq/basics",
      title: "Definitions and overview",
      body: "Acme Desktop is a free operating system. This FAQ answers questions. ",
      sections: [
        "1.1 What is Acme Desktop?",
        "1.2 What is this FAQ?",
        "1.3 Who makes the releases?",
      ],
    },
    {
      id: "/faq/getting",
      title: "Getting and installing Acme Desktop",
      body: "Acme Desktop images: get Acme Desktop from a mirror. Acme Desktop installs on most " +
        "machines. Which Acme Desktop release? The desktop of Acme. ".repeat(4),
      sections: ["2.1 Where can I get Acme Desktop?", "2.2 How do I install Acme Desktop?"],
    },
    {
      id: "/faq/support",
      title: "Support for Acme Desktop",
      body: "Questions about Acme Desktop go to the lists. Acme Desktop support. Desktop. ".repeat(
        4,
      ),
      sections: ["3.1 Where do I ask about Acme Desktop?"],
    },
  ]);
}

Deno.test("rank heading names - a question asked word for word as an FAQ heading finds that heading's page first", () => {
  const db = faq();
  assert.equal(urls(db, "What is Acme Desktop?")[0], "/faq/basics");
  // With a typo in it, the question still names its page.
  assert.equal(urls(db, "What is Acme Dekstop?")[0], "/faq/basics");
  // A question no heading asks is ranked by its words as before.
  assert.equal(urls(db, "Where is Acme Desktop support?")[0], "/faq/support");
});

Deno.test("rank heading names - a heading that names a question exactly wins over one that names all but a word of it", () => {
  // Many chapters say "many" and "Acme": only "editions" is rare.
  const chapters = Array.from({ length: 12 }, (_, i) => ({
    id: `/faq/chapter${i}`,
    title: `Chapter ${i}`,
    body: "Many Acme users ask many things about Acme. ",
    sections: [`${i}.1 Acme questions`],
  }));
  const db = site([
    ...chapters,
    {
      id: "/faq/archives",
      title: "The archives",
      body: "There are three editions: basic, plus and pro. ",
      sections: ["5.1 How many Acme editions are there?"],
    },
    {
      id: "/faq/choosing",
      title: "Choosing an edition",
      body: "Which of the Acme editions suits you? Many Acme users choose basic. " +
        "Acme editions differ. ".repeat(6),
      sections: ["4.1 Which Acme editions?", "4.2 Many Acme releases"],
    },
  ]);
  assert.equal(urls(db, "How many Acme editions are there?")[0], "/faq/archives");
});

Deno.test("rank heading names - a setting's own heading names it for 'NAME setting' before the page that lists every setting", () => {
  // Twelve topic pages mention settings; one documents FROB_HOST under its own heading.
  const topics = Array.from({ length: 12 }, (_, i) => ({
    id: `/topics/topic${i}`,
    title: `Topic ${i}`,
    body: `Topic ${i} has a setting or two. Each setting has a default. `.repeat(3),
    sections: [`Topic ${i}`, "Settings"],
  }));
  const db = site([
    ...topics,
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
        "FROB_PORT. A setting is read once. Setting names are upper case. ".repeat(3),
      sections: ["Settings", "Built-in settings reference", "Setting defaults"],
    },
  ]);
  assert.equal(urls(db, "FROB_HOST setting")[0], "/topics/email");
});

Deno.test("rank heading names - the heading that defines a query's rare name outranks a title that names its qualifier words", () => {
  // "frob_limit configuration parameter": the chapter titled "Configuration parameters"
  // mentions frob_limit once; the resources page defines it under a heading of its own.
  // Every chapter speaks of its configuration parameters: only frob_limit is rare.
  const db = site([
    ...filler(12).map((p) => ({ ...p, body: `${p.body} Its configuration parameters vary.` })),
    {
      id: "/manual/config",
      title: "Configuration parameters",
      body: "Each configuration parameter is set in frob.conf. A parameter such as frob_limit " +
        "is read at start. Configuration files hold one parameter a line. ".repeat(2),
      sections: ["19. Configuration parameters", "19.1 Setting a parameter"],
    },
    {
      id: "/manual/resources",
      title: "Resource consumption",
      body: "These configuration parameters bound memory. frob_limit (integer) caps the " +
        "memory a sort may use before writing to disk. Every program reads files. ".repeat(3),
      sections: ["20. Resource consumption", "frob_limit (integer)", "frob_depth (integer)"],
    },
  ]);
  assert.equal(urls(db, "frob_limit configuration parameter")[0], "/manual/resources");
});

Deno.test("rank heading names - words every chapter uses only qualify a query: the page with its rare word comes before a title made of them", () => {
  // "quuxify command line option": every chapter speaks of command line options; one page
  // is titled so and lacks "quuxify"; the page that documents quuxify says little else.
  const db = site([
    ...filler(20).map((p) => ({ ...p, body: `${p.body} Each command line option is listed.` })),
    {
      id: "/manual/options",
      title: "Command line options",
      body: "A command line option changes one behaviour. Option names start with dashes. " +
        "Every command reads the line it is given. ".repeat(3),
      sections: ["3. Command line options"],
    },
    {
      id: "/manual/quuxify",
      title: "Rewriting catalogs",
      body: "To quuxify a catalog is to rewrite each entry in place, keeping its order.",
      sections: ["7. Rewriting catalogs", "7.2 Entries"],
    },
  ]);
  assert.equal(urls(db, "quuxify command line option")[0], "/manual/quuxify");
  // Counted as words that mean (the knob off), they put the title made of them first.
  const off = rank(db, "quuxify command line option", {
    ranking: rankingWith({ qualifier: { ratio: 0 } }),
  });
  assert.equal(docAt(db, off.ids[0]).id, "/manual/options");
  // Typed alone, the qualifying words find the page they name.
  assert.equal(urls(db, "command line options")[0], "/manual/options");
});
