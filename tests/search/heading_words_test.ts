import assert from "node:assert/strict";
import {
  addDoc,
  createSiteDb,
  docAt,
  removeDoc,
  seal,
  type SiteDb,
} from "../../lib/search/engine/store/site_db.ts";
import { rank } from "../../lib/search/engine/query/rank.ts";
import { doc, type Page } from "./sites.ts";

function put(db: SiteDb, p: Page) {
  removeDoc(db, p.id);
  addDoc(db, doc(p));
}

const first = (db: SiteDb, q: string) => docAt(db, rank(db, q).ids[0]).id;

const basics = (sections: string[]): Page => ({
  id: "/faq/basics",
  title: "Definitions and overview",
  body: "Acme Desktop is a free operating system. This FAQ answers questions. ",
  sections,
});
const getting = (sections: string[]): Page => ({
  id: "/faq/getting",
  title: "Getting and installing Acme Desktop",
  body: "Acme Desktop images: get Acme Desktop from a mirror. Acme Desktop installs on most " +
    "machines. Which Acme Desktop release? The desktop of Acme. ".repeat(4),
  sections,
});

Deno.test("rank heading names - a page whose headings change is judged by its new headings, though it was searched before", () => {
  const db = createSiteDb();
  put(db, basics(["1.1 What is Acme Desktop?", "1.2 Who makes the releases?"]));
  put(db, getting(["2.1 Where can I get Acme Desktop?", "2.2 How do I install it?"]));
  assert.equal(first(db, "What is Acme Desktop?"), "/faq/basics");
  // The question moves to the other page: the page that asks it now comes first.
  put(db, basics(["1.1 Overview", "1.2 Who makes the releases?"]));
  put(db, getting(["2.1 What is Acme Desktop?", "2.2 How do I install it?"]));
  assert.equal(first(db, "What is Acme Desktop?"), "/faq/getting");
  // And back: nothing of the old headings is kept for either page.
  put(db, basics(["1.1 What is Acme Desktop?", "1.2 Who makes the releases?"]));
  put(db, getting(["2.1 Where can I get Acme Desktop?", "2.2 How do I install it?"]));
  assert.equal(first(db, "What is Acme Desktop?"), "/faq/basics");
});

Deno.test("rank heading names - pages numbered anew after removals are judged by their own headings", () => {
  const db = createSiteDb();
  put(db, basics(["1.1 What is Acme Desktop?", "1.2 Who makes the releases?"]));
  put(db, getting(["2.1 Where can I get Acme Desktop?", "2.2 How do I install it?"]));
  assert.equal(first(db, "What is Acme Desktop?"), "/faq/basics");
  // The page that asked the question goes; the others take new numbers, then a new page asks it.
  removeDoc(db, "/faq/basics");
  seal(db);
  put(db, { ...basics(["1.1 What is Acme Desktop?"]), id: "/faq/intro" });
  assert.equal(first(db, "What is Acme Desktop?"), "/faq/intro");
});

Deno.test("rank heading names - numbers and stop words in a heading do not keep it from naming the query, in any case", () => {
  const db = createSiteDb();
  put(db, basics(["1.1 WHAT IS ACME DESKTOP?", "1.2 Who makes the releases?"]));
  put(db, getting(["2.1 Where can I get Acme Desktop?", "2.2 How do I install it?"]));
  assert.equal(first(db, "what is acme desktop"), "/faq/basics");
});

Deno.test("rank heading names - a heading line past 16 bits of length names nothing and the lines after it still do", () => {
  const db = createSiteDb();
  const long = "Acme " + "desktop ".repeat(9000); // 72,005 characters, one line
  put(db, { ...basics([long, "1.2 What is Acme Desktop?"]), id: "/faq/long" });
  put(db, getting(["2.1 Where can I get Acme Desktop?", "2.2 How do I install it?"]));
  assert.equal(first(db, "What is Acme Desktop?"), "/faq/long");
  assert.equal(first(db, "where can I get acme desktop"), "/faq/getting");
});

Deno.test("rank heading names - a page whose headings hold more words than 16 bits number keeps the lines before, and others rank", () => {
  const db = createSiteDb();
  // 70,000 distinct words, a line of 10 each, after a line naming the query.
  const lines = ["1.1 What is Acme Desktop?"];
  for (let i = 0; i < 7_000; i++) {
    lines.push(Array.from({ length: 10 }, (_, j) => `w${(i * 10 + j).toString(36)}x`).join(" "));
  }
  put(db, { ...basics(lines), id: "/faq/huge" });
  put(db, getting(["2.1 Where can I get Acme Desktop?", "2.2 How do I install it?"]));
  assert.equal(first(db, "What is Acme Desktop?"), "/faq/huge");
  assert.equal(first(db, "where can I get acme desktop"), "/faq/getting");
});
