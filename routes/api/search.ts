/**
 * GET /api/search: parameters checked here, the search itself in lib/usecases/search_site.ts.
 * The route has two forms that share everything but their plumbing: the Hono route behind the
 * app's middleware, and `searchEarly`, the same route for our HTTP server's `early` hook, which
 * answers from the parsed head before a Request, Hono or a Response is made (a cached answer
 * then costs half as much). Both read the request with `askOf`, answer with `searchSite`, and
 * take the request id, CORS headers, error envelope and access line from lib/http/middleware.ts,
 * the functions the app's middleware uses for every other route.
 */
import { Hono } from "hono";
import { getQueryParams } from "hono/utils/url";
import { invalid } from "../../lib/errors.ts";
import { publicKeyFrom } from "../../lib/http/auth.ts";
import {
  accessLine,
  allowOnly,
  type AppEnv,
  clientIp,
  errorAnswer,
  nextRequestId,
  respond,
  visitorOf,
} from "../../lib/http/middleware.ts";
import { clientAddress } from "../../lib/http/proxies.ts";
import { FacetsParam, parse, SearchFilters, SearchParams } from "../../lib/http/schemas.ts";
import type { EarlyAnswer, EarlyRequest } from "../../lib/http/server/mod.ts";
import type { Services } from "../../lib/services.ts";
import { type SearchAsk, searchSite } from "../../lib/usecases/search_site.ts";

const PATH = "/api/search";

/** Query parameters as one value each; a repeated one is refused rather than guessed. */
function singleParams(all: Record<string, string[]>, names: string[]) {
  const out: Record<string, string> = {};
  for (const name of names) {
    const values = all[name];
    if (!values) continue;
    if (values.length > 1) throw invalid(name, `${name} must be given once.`);
    out[name] = values[0];
  }
  return out;
}

/** What a query string asks besides the key, once checked: the same text asks the same. */
interface Parsed {
  keys: string[];
  params: ReturnType<typeof SearchParams.parse>;
  filters: ReturnType<typeof SearchFilters.parse>;
  facets: boolean;
}

/**
 * Query strings checked lately (a repeated or refined search sends the same one): a request
 * skips decoding and validating what an earlier one of the same text passed. Bounded: cleared
 * when full, and only short query strings without filters are kept (a kept Map is shared).
 */
const checked = new Map<string, Parsed>();
const MAX_CHECKED = 1024;
const MAX_CHECKED_CHARS = 512;

/** Every parameter but the key, checked by the schemas; throws the first refusal. */
function checkParams(all: Record<string, string[]>): Parsed {
  const once = singleParams(all, ["q", "page", "per_page", "session", "facets"]);
  return {
    keys: all.key ?? [],
    params: parse(SearchParams, once),
    filters: parse(SearchFilters, all.filter ?? [], "filter"),
    facets: parse(FacetsParam, once.facets, "facets"),
  };
}

/** The search a request to `url` asks, with its headers; throws the refusal. */
function askOf(
  url: string,
  header: (name: string) => string | undefined,
  onSite: (siteId: string) => void,
  visitor: () => string | undefined,
): SearchAsk & { asJson: true } {
  const at = url.indexOf("?", 8);
  const query = at < 0 ? "" : url.slice(at);
  let p = checked.get(query), key: string;
  if (p) key = publicKeyFrom(header("x-api-key"), p.keys);
  else {
    const all = getQueryParams("http://x" + query) as Record<string, string[]>;
    // The key is checked first: its refusals come before the other parameters'.
    key = publicKeyFrom(header("x-api-key"), all.key ?? []);
    p = checkParams(all);
    if (query.length <= MAX_CHECKED_CHARS && !p.filters.size) {
      if (checked.size >= MAX_CHECKED) checked.clear();
      checked.set(query, p);
    }
  }
  return {
    key,
    origin: header("origin"),
    q: p.params.q,
    page: p.params.page,
    perPage: p.params.per_page,
    session: p.params.session,
    visitor,
    filters: p.filters,
    facets: p.facets,
    onSite,
    asJson: true,
  };
}

export function searchRoutes(s: Services) {
  const app = new Hono<AppEnv>();
  app.get(PATH, async (c) => {
    const answer = await searchSite(
      s,
      askOf(
        c.req.url,
        (name) => c.req.header(name),
        (id) => c.set("siteId", id),
        () => visitorOf(clientIp(c, s.trustedProxies)),
      ),
    );
    return respond(c, answer.json, 200, {
      ...answer.headers,
      "Content-Type": "application/json",
    });
  });
  allowOnly(app, PATH, ["GET"]);
  return app;
}

/** What the app's middleware adds to every public API answer, for `searchEarly`. */
export interface EarlyFront {
  /** The access log's clock (milliseconds). */
  now: () => number;
  /** The CORS headers of every public API answer (middleware.ts `corsHeaders`). */
  cors: [string, string][];
}

const encoder = new TextEncoder();

/**
 * GET /api/search for our server's `early` hook: the route above, answered with the same
 * headers, error envelope and access line as behind the app's middleware. Any other path is
 * left to the app; so is a path the app would only reach after decoding it.
 */
export function searchEarly(s: Services, front: EarlyFront) {
  return (req: EarlyRequest): Promise<EarlyAnswer> | null => {
    const at = req.url.indexOf("/", req.url.indexOf("//") + 2);
    const end = at + PATH.length;
    if (!req.url.startsWith(PATH, at) || (end < req.url.length && req.url[end] !== "?")) {
      return null;
    }
    return answerEarly(s, front, req);
  };
}

async function answerEarly(s: Services, front: EarlyFront, req: EarlyRequest) {
  const started = front.now();
  const requestId = nextRequestId();
  let siteId: string | undefined;
  // Set, not appended, by lower-case name: what Hono and the middleware do to the Response.
  const headers: Record<string, string> = {};
  const put = (from: Record<string, string>) => {
    for (const name in from) headers[name.toLowerCase()] = from[name];
  };
  let status = 200, body: Uint8Array;
  try {
    const header = (name: string) => headerValue(req.headers, name);
    const visitor = () =>
      visitorOf(
        clientAddress(req.remoteAddr.hostname, header("x-forwarded-for") ?? null, s.trustedProxies),
      );
    const answer = await searchSite(s, askOf(req.url, header, (id) => siteId = id, visitor));
    put(answer.headers);
    headers["content-type"] = "application/json";
    body = answer.json;
  } catch (err) {
    const e = errorAnswer(err, requestId, s.log);
    headers["content-type"] = "application/json";
    put(e.headers);
    status = e.status;
    body = encoder.encode(JSON.stringify(e.body));
  }
  headers["x-request-id"] = requestId;
  for (const [name, value] of front.cors) headers[name.toLowerCase()] = value;
  s.log(accessLine(started, front.now(), requestId, "GET", PATH, status, siteId));
  return { status, headers: Object.entries(headers), body };
}

/** A header's value as `Headers.get` gives it: every line of that name, joined by ", ". */
function headerValue(lines: readonly [string, string][], name: string): string | undefined {
  let value: string | undefined;
  for (const [n, v] of lines) {
    if (n.length === name.length && n.toLowerCase() === name) {
      value = value === undefined ? v : `${value}, ${v}`;
    }
  }
  return value;
}
