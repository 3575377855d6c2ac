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
