/** Helpers of the levers' tests: their admin calls, and a small shop's pages. */
import { admin, type TestApp, type TestSite } from "../helpers.ts";

/** PUT or GET one of the levers' lists; returns status and JSON. */
export async function lever(
  t: TestApp,
  site: TestSite,
  kind: "synonyms" | "curations",
  body?: unknown,
) {
  const res = await t.call(
    `/api/admin/sites/${site.id}/${kind}`,
    body === undefined ? admin(site.adminKey) : { ...admin(site.adminKey, body), method: "PUT" },
  );
  return { status: res.status, body: await res.json() };
}

/** The result paths of a search answer, without #sections. */
export const urls = (body: { results: { url: string }[] }) =>
  body.results.map((r) => r.url.split("#")[0]);

export const SHOP = [
  {
    url: "/shirts",
    title: "Cotton T-shirts",
    body: "Our t-shirt range: organic cotton t-shirt in six colours, printed in Ghent.",
  },
  {
    url: "/hoodies",
    title: "Hoodies",
    body: "Warm hoodies of brushed cotton, with a kangaroo pocket.",
  },
  {
    url: "/stores",
    title: "Our stores in New York",
    body: "Visit our stores in New York and Boston, open every day from 10 to 7.",
  },
  {
    url: "/support/refunds",
    title: "Refunds",
    body: "How a refund works: send the item back within 30 days and we refund the full price.",
  },
  {
    url: "/old/refunds",
    title: "Refund policy (2019)",
    body: "Our old refund policy: refund within 14 days, store credit only.",
  },
  {
    url: "/contact",
    title: "Contact",
    body: "Write to us about an order, a return or anything else.",
  },
];
