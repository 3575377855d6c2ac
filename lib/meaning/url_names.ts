/**
 * Names a site gives a page by its URLs: a URL that redirects to it, or a page that declares
 * it its canonical URL, names it by the words of its last path segment ("/docs/cdn-setup" →
 * "cdn setup"). Each such pair is an equivalence between the two URLs' names, in the shape
 * of the names a page's text states (equivalences.ts), with the two URLs as its evidence.
 */
import { type Equivalence, MAX_PHRASE_WORDS } from "../search/engine/mod.ts";

/** A name longer than this is no word an owner would make a synonym of (levers' phrase size). */
const MAX_NAME_CHARS = 64;
/** A URL's file endings, which say how the page is made, not what it is. */
const ENDING = /\.(?:s?html?|xhtml|php\d?|aspx?|jsp|cgi)$/i;

const decode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/** The words of a path's last segment ("index" names its folder), or null if they name nothing. */
export function slugName(path: string): string | null {
  const segments = path.split(/[?#]/)[0].split("/").map((x) => decode(x).replace(ENDING, ""))
    .filter(Boolean);
  let last = segments.pop();
  if (last && /^(?:index|default)$/i.test(last)) last = segments.pop();
  if (!last) return null;
  const words = last.replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2").toLowerCase()
    .split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  // An id ("12345", "p7") or a slug of many words is not a name someone searches for.
  if (!words.some((w) => (w.match(/\p{L}/gu)?.length ?? 0) >= 2)) return null;
  const name = words.join(" ");
  return words.length <= MAX_PHRASE_WORDS && name.length <= MAX_NAME_CHARS ? name : null;
}

/**
 * The equivalence of two paths of one page: `from` redirects to `to`, or declares `to` its
 * canonical URL. Null when either names nothing or both name it alike.
 */
export function urlEquivalence(
  from: string,
  to: string,
  kind: "redirect" | "canonical",
): Equivalence | null {
  const a = slugName(from), b = slugName(to);
  if (!a || !b) return null;
  const same = (x: string) => x.split(" ").sort().join(" ");
  if (same(a) === same(b)) return null;
  return { words: a.length <= b.length ? [a, b] : [b, a], kind, seen: 1, urls: [from, to] };
}
