/**
 * The IndexNow protocol's requests (indexnow.org/documentation), their shape already checked
 * (lib/http/schemas.ts IndexNowBody and IndexNowQuery): the POST body `{host, key, keyLocation?,
 * urlList}` and the GET query `?url=…&key=…&keyLocation=…`, read into one ping. A host or URL
 * that does not parse is a 400; a key off the protocol's schema, a URL not on the host or
 * outside the key file's folder, a 422 (the protocol's two refusals of a well-formed ping).
 */
import { DomainError, invalid } from "../errors.ts";

/** URLs one POST may list (the protocol's maximum). */
export const MAX_URLS = 10_000;
/** Characters of one URL (ours: a page's URL longer than this is no page we keep). */
export const MAX_URL_CHARS = 2_000;
/** The key's schema: 8 to 128 of a-z, A-Z, 0-9 and "-". */
export const KEY_PATTERN = /^[A-Za-z0-9-]{8,128}$/;

/** A ping, read and checked: every URL is on `host` and under the key file's folder. */
export interface IndexNowPing {
  /** hostname[:port], lower case, as URL.host gives it. */
  host: string;
  key: string;
  /** The key file named by the ping (on `host`), or null: `<scheme>://<host>/<key>.txt`. */
  keyLocation: string | null;
  /** Absolute URLs, without fragments, each once, in the order listed. */
  urls: string[];
  /** The form it came in: a POST's `urlList`, or a GET's one `url` (what refusals name). */
  form: "post" | "get";
}

/** The POST form's body as a ping. */
export function pingFromBody(
  b: { host: string; key: string; keyLocation?: string | null; urlList: string[] },
): IndexNowPing {
  const urls = b.urlList.map((raw, i) => httpUrl(raw, `urlList[${i}]`));
  return checked({
    host: hostOf(b.host),
    key: b.key,
    keyLocation: b.keyLocation,
    urls,
    form: "post",
  });
}

/** The GET form's query as a ping: one URL, on its own host. */
export function pingFromQuery(
  q: { url: string; key: string; keyLocation?: string | null },
): IndexNowPing {
  const url = httpUrl(q.url, "url");
  return checked({
    host: url.host,
    key: q.key,
    keyLocation: q.keyLocation,
    urls: [url],
    form: "get",
  });
}

/** The host field as URL.host would say it, or a 400 when it is not a bare host[:port]. */
function hostOf(raw: string): string {
  const u = /[/?#@\\\s]/.test(raw) ? null : URL.parse(`http://${raw}/`);
  if (!u) throw invalid("host", "host must be a host name (and port), e.g. www.example.com.");
  return u.host;
}

/** An http(s) URL without its fragment, or a 400 naming `param`. */
function httpUrl(raw: string, param: string): URL {
  const u = URL.parse(raw);
  if (!u || (u.protocol !== "http:" && u.protocol !== "https:")) {
    throw invalid(param, `${param} must be an absolute http or https URL.`);
  }
  u.hash = "";
  return u;
}

/** The key's schema and every URL's place: the protocol's 422s. */
function checked(p: {
  host: string;
  key: string;
  keyLocation?: string | null;
  urls: URL[];
  form: IndexNowPing["form"];
}): IndexNowPing {
  const keyFile = p.keyLocation ? httpUrl(p.keyLocation, "keyLocation") : null;
  // The protocol's own example key ends in a space: white space around a key is no part of it.
  const key = p.key.trim();
  if (!KEY_PATTERN.test(key)) {
    throw new DomainError(
      "INDEXNOW_KEY_MALFORMED",
      "key must be 8 to 128 characters of a-z, A-Z, 0-9 and -.",
      { param: "key" },
    );
  }
  if (keyFile && keyFile.host !== p.host) {
    throw notOnHost("keyLocation", `keyLocation must be on ${p.host}.`);
  }
  // A key file under a folder vouches only for URLs under that folder.
  const folder = keyFile ? keyFile.pathname.slice(0, keyFile.pathname.lastIndexOf("/") + 1) : "/";
  const seen = new Set<string>();
  p.urls.forEach((u, i) => {
    const param = p.form === "get" ? "url" : `urlList[${i}]`;
    if (u.host !== p.host) {
      throw notOnHost(param, `${param} is not on ${p.host}: ${JSON.stringify(u.href)}.`);
    }
    if (!u.pathname.startsWith(folder)) {
      throw notOnHost(
        param,
        `${param} is outside ${folder}, the key file's folder: ${JSON.stringify(u.href)}.`,
      );
    }
    seen.add(u.href);
  });
  return {
    host: p.host,
    key,
    keyLocation: keyFile?.href ?? null,
    urls: [...seen],
    form: p.form,
  };
}

const notOnHost = (param: string, message: string) =>
  new DomainError("INDEXNOW_URL_NOT_ON_HOST", message, { param });
