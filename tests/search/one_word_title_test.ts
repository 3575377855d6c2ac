/**
 * A one-word query that is a page's whole title: the visitor means that page, not the pages
 * that have a section of that name.
 */
import assert from "node:assert/strict";
import { rank } from "../../lib/search/engine/query/rank.ts";
import { addDoc, createSiteDb, docAt } from "../../lib/search/engine/store/site_db.ts";
import { doc } from "./sites.ts";

const page = (id: string, title: string, body: string, sections: string[] = []) =>
  doc({ id, title, body, sections });

Deno.test("rank - a one-word query that is a page's whole title ranks that page before pages with a section of that name", () => {
  const db = createSiteDb();
  // Three add-ons each end with a "Download" section; the site has a page titled "Download".
  for (const name of ["Tamper", "Scale", "Timer"]) {
    addDoc(
      db,
      page(
        `/addons/${name.toLowerCase()}`,
        `${name} add-on`,
        `${name} add-on.\nDownload\nGet it from the shop.`,
        ["Download"],
      ),
    );
  }
  addDoc(
    db,
    page("/download", "Download", "Get the app in source or packaged form, then see setup."),
  );
  addDoc(db, page("/setup", "Setup", "Install the app and start it."));
  const first = docAt(db, rank(db, "download ").ids[0], 0).id;
  assert.equal(first, "/download");
});

Deno.test("rank - a one-word query held by one title only ranks that page before a page about something else with a section of that word", () => {
  const db = createSiteDb();
  // A questions page has a "Returns" section; one page is given to returns and exchanges.
  addDoc(
    db,
    page(
      "/questions",
      "Common questions",
      "Common questions.\nOrders\nYou can order online.\nReturns\nCan I send it back? Returns are free within a month.\nAccounts\nSign in with email.",
      ["Orders", "Returns", "Accounts"],
    ),
  );
  addDoc(
    db,
    page(
      "/returns",
      "Returns and exchanges",
      "Send an item back within a month. Returns are free; exchanges ship once the return arrives.",
    ),
  );
  addDoc(db, page("/about", "About us", "A small shop that sells lamps and ships them well."));
  assert.equal(docAt(db, rank(db, "returns").ids[0], 0).id, "/returns");
  // Where two titles hold the word, neither names it alone: the named section stays first.
  addDoc(db, page("/returns-policy", "Returns policy", "The policy in full."));
  assert.equal(docAt(db, rank(db, "returns").ids[0], 0).id, "/questions");
});
