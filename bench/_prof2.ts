import { extractPage } from "../lib/crawl/extract.ts";
import { findMatches, makeMatcher } from "../lib/search/highlight.ts";
import { foldInPlace } from "../lib/search/tokens.ts";
const p = extractPage(
  await Deno.readTextFile("/usr/share/doc/python-django-doc/html/ref/templates/builtins.html"),
  "http://x/",
);
const body = p.text.slice(0, 50000);
const m = makeMatcher(["template", "tag", "url"], ["templat", "tag", "url"]);
const T = (label: string, f: () => unknown) => {
  for (let i = 0; i < 50; i++) f();
  const t = performance.now();
  for (let i = 0; i < 200; i++) f();
  console.log(label, ((performance.now() - t) / 200 * 1000).toFixed(1), "µs");
};
T("fold", () => foldInPlace(body));
T("lower", () => body.toLowerCase());
T("indexOf", () => {
  let n = 0;
  for (let at = body.indexOf("tag"); at >= 0; at = body.indexOf("tag", at + 1)) n++;
  return n;
});
T("find", () => findMatches(body, m));
console.log(findMatches(body, m).length, /[^\x00-\x7f]/.test(body));
const low = foldInPlace(body).toLowerCase();
T("indexOf on folded lower", () => {
  let n = 0;
  for (const r of m.roots) for (let at = low.indexOf(r); at >= 0; at = low.indexOf(r, at + 1)) n++;
  return n;
});
T("fold+lower", () => foldInPlace(body).toLowerCase());
console.log(m.roots);
