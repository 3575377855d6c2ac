/** Pages with filters for the filter tests: a small shop of brewing guides and kit. */
import { admin, type TestApp, type TestSite } from "../helpers.ts";

export const BREW = [
  {
    url: "/guides/pale-ale",
    title: "Pale ale brewing guide",
    body: "Brew a pale ale at home: malt, hops, yeast and a week of patience.",
    filters: { category: ["Brewing", "Guides"], level: ["Beginner"] },
  },
  {
    url: "/guides/stout",
    title: "Stout brewing guide",
    body: "Brew a dark stout: roasted malt, hops and a long boil.",
    filters: { category: ["Brewing", "Guides"], level: ["Advanced"] },
  },
  {
    url: "/shop/kettle",
    title: "Brewing kettle",
    body: "A 30 litre kettle for brewing ale and stout at home.",
    filters: { category: ["Kit"], level: ["Beginner"] },
  },
  {
    url: "/shop/hops",
    title: "Cascade hops",
    body: "Cascade hops for brewing pale ale, 100 g.",
    filters: { category: ["Ingredients"] },
  },
  {
    url: "/",
    title: "Home brewing shop",
    body: "Everything for brewing beer at home.",
  },
];

/** Upserts pages (with any fields) and answers the response's status and body. */
export async function upsert(t: TestApp, site: TestSite, pages: unknown[]) {
  const res = await t.call(`/api/admin/sites/${site.id}/pages`, {
    ...admin(site.adminKey, { pages }),
    method: "PUT",
  });
  return { status: res.status, body: await res.json() };
}

/** The result URLs of a search body. */
export const urls = (body: { results: { url: string }[] }) =>
  body.results.map((r) => r.url.split("#")[0]).sort();
