/**
 * /docs/api: the API reference, rendered on the server. The endpoints come from api_endpoints.ts,
 * the errors from lib/http/errors.ts's table, and the curl lines carry the signed-in site's public
 * key and id (placeholders when nobody is signed in). No JavaScript: a click selects a curl line.
 */
import { DomainError, type ErrorCode } from "../lib/errors.ts";
import { errorObject, ERRORS } from "../lib/http/errors.ts";
import { type Auth, type Endpoint, GROUPS } from "./api_endpoints.ts";

/** Whose keys the examples use: a signed-in site's, or none. */
export interface DocsSite {
  id: string;
  name: string;
  publicKey: string;
}

/** When each error is answered: the words only; codes, statuses and types are the table's. */
const WHEN: Record<ErrorCode, string> = {
  INVALID_PARAMETER: "A parameter or body field is missing or wrong; param names it.",
  INVALID_JSON: "The body is not valid JSON.",
  MISSING_API_KEY: "No key was sent.",
  INVALID_API_KEY: "The key is unknown, rotated out (after its grace period) or malformed.",
  ORIGIN_NOT_ALLOWED: "The browser's Origin is not in the site's allowed origins.",
  SUMMARIES_DISABLED: "AI answers are off for the site.",
  FOLLOWUP_REQUIRES_PAID_PLAN: "A follow-up question on the free plan.",
  PLAN_FEATURE_UNAVAILABLE: "The plan lacks the feature, e.g. documents below Business.",
  OPERATOR_ONLY: "A site admin key called an operator-only endpoint or field.",
  FOLLOWUPS_DISABLED: "A follow-up on a site that turned follow-ups off.",
  NOT_FOUND: "Unknown route or resource (also another site's id).",
  CONVERSATION_NOT_FOUND: "Unknown, expired or another site's conversationId.",
  METHOD_NOT_ALLOWED: "The path exists, the method does not; see the Allow header.",
  REQUEST_TIMEOUT: "The request body did not arrive in time.",
  CONVERSATION_TURN_LIMIT_REACHED: "The conversation's 21st question.",
  CRAWL_IN_PROGRESS: "A crawl of the site is already running.",
  PAYLOAD_TOO_LARGE: "The body is over the endpoint's limit.",
  UNSUPPORTED_MEDIA_TYPE: "The body is not application/json where JSON is expected.",
  SEARCH_RATE_LIMIT_EXCEEDED: "The plan's searches per minute are used; see retry_after.",
  MONTHLY_SEARCH_QUOTA_EXCEEDED: "The month's searches are used; see resets_at.",
  AI_CREDITS_EXHAUSTED: "The month's AI credits are used; see resets_at.",
  SUMMARY_RATE_LIMIT_EXCEEDED: "Too many answers for one visitor's address in a minute.",
  EVENT_RATE_LIMIT_EXCEEDED: "Too many click events from one address in a minute.",
  SIGN_IN_RATE_LIMIT_EXCEEDED:
    "Too many failed sign-ins or wrong admin tokens from one address in a minute.",
  REFETCH_RATE_LIMIT_EXCEEDED:
    "The site already has ten re-fetches of named URLs waiting or running; wait a few seconds.",
  PREVIEW_RATE_LIMIT_EXCEEDED:
    "Too many previews of unsaved synonyms or curations for one site in a minute.",
  URI_TOO_LONG: "The request line is too long.",
  HEADER_FIELDS_TOO_LARGE: "The request's headers are too large.",
  INTERNAL_ERROR: "A bug on our side; the body never carries details.",
  NOT_IMPLEMENTED: "A method the server does not know (methods are case-sensitive).",
  UPSTREAM_ERROR: "The language model failed.",
  SERVICE_UNAVAILABLE: "Storage is unavailable; retry after Retry-After.",
  HTTP_VERSION_NOT_SUPPORTED: "An HTTP version other than 1.0 and 1.1.",
};

const AUTH_LABEL: Record<Auth, string> = {
  public: "public key",
  admin: "admin key or operator",
  operator: "operator",
  none: "no key",
};

/** A string as one single-quoted shell word. */
const sh = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The endpoint's example as a curl command, for `site` when someone is signed in. */
export function curlLine(e: Endpoint, origin: string, site: DocsSite | null): string {
  const path = e.path.replace(":id", site?.id ?? "SITE_ID").replace(":jobId", "cj_JOB_ID")
    .replace(":docId", "doc_DOCUMENT_ID");
  const parts = ["curl", ...(e.method === "GET" ? [] : ["-X", e.method])];
  parts.push(sh(`${origin}${path}${e.query ? `?${e.query}` : ""}`));
  if (e.auth === "public") parts.push("-H", sh(`X-API-Key: ${site?.publicKey ?? "pk_YOUR_KEY"}`));
  // Secrets are never on the page: the shell supplies them.
  if (e.auth === "admin") parts.push("-H", `"Authorization: Bearer $SITESEARCH_ADMIN_KEY"`);
  if (e.auth === "operator") parts.push("-H", `"Authorization: Bearer $SITESEARCH_OPERATOR_TOKEN"`);
  const lines = [parts.join(" ")];
  if (e.body !== undefined) {
    lines.push(`-H 'Content-Type: application/json'`, `-d ${sh(JSON.stringify(e.body))}`);
  }
  lines.push(...e.raw ?? []);
  return lines.join(" \\\n  ");
}

const anchor = (e: Endpoint) =>
  `${e.method}-${e.path}`.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/-$/, "");

function EndpointDoc({ e, origin, site }: { e: Endpoint; origin: string; site: DocsSite | null }) {
  return (
    <article class="endpoint" id={anchor(e)}>
      <h3>
        <span class={`method ${e.method.toLowerCase()}`}>{e.method}</span> <code>{e.path}</code>
        {" "}
        <span class="badge">{AUTH_LABEL[e.auth]}</span>
      </h3>
      <p>{e.summary}</p>
      {e.params
        ? (
          <div class="table-wrap">
            <table class="table params">
              <thead>
                <tr>
                  <th scope="col">
                    {e.method === "GET" || e.method === "DELETE" ? "Parameter" : "Field"}
                  </th>
                  <th scope="col">Rule</th>
                </tr>
              </thead>
              <tbody>
                {e.params.map(([name, rule]) => (
                  <tr key={name}>
                    <td>
                      <code>{name}</code>
                    </td>
                    <td>{rule}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
        : null}
      <pre class="code curl" data-curl={anchor(e)}><code>{curlLine(e, origin, site)}</code></pre>
      {e.errors?.length
        ? (
          <p class="muted errors-of">
            Also answers {e.errors.map((code, i) => (
              <>
                {i ? ", " : ""}
                <a href={`#error-${code}`}>
                  <code>{code}</code>
                </a>
              </>
            ))}.
          </p>
        )
        : null}
    </article>
  );
}

export function ApiReference({ origin, site }: { origin: string; site: DocsSite | null }) {
  const example = errorObject(
    new DomainError("INVALID_PARAMETER", "q must not be empty", { param: "q" }),
    "req_EXAMPLE",
  );
  return (
    <article class="prose reference">
      <h1>API reference</h1>
      <h2 id="in-short">The API in short</h2>
      <p>
        Every endpoint answers JSON at{" "}
        <code>{origin}</code>. Public endpoints take the site's public key (<code>pk_…</code>);
        admin endpoints take <code>Authorization: Bearer</code>{" "}
        with the site's admin key (<code>sk_…</code>) or the operator token. Every error has the
        same envelope.
      </p>
      {site
        ? (
          <p class="notice" data-docs-site={site.id}>
            The examples use <strong>{site.name}</strong>: its public key and its site id. Set{" "}
            <code>SITESEARCH_ADMIN_KEY</code>{" "}
            in your shell to the site's admin key to run the admin ones.
          </p>
        )
        : (
          <p class="notice">
            The examples show placeholders. <a href="/dashboard">Sign in to the dashboard</a>{" "}
            and they use your site's public key and id.
          </p>
        )}
      <p class="muted">Click a command to select it whole, then copy it.</p>
      <nav aria-label="Sections" class="toc">
        <ul>
          {GROUPS.map((g) => (
            <li key={g.id}>
              <a href={`#${g.id}`}>{g.title}</a>
            </li>
          ))}
          <li>
            <a href="#errors">Errors</a>
          </li>
        </ul>
      </nav>
      {GROUPS.map((g) => (
        <section key={g.id} aria-labelledby={g.id}>
          <h2 id={g.id}>{g.title}</h2>
          <p>{g.intro}</p>
          {g.endpoints.map((e) => (
            <EndpointDoc
              key={anchor(e)}
              e={e}
              origin={origin}
              site={site}
            />
          ))}
        </section>
      ))}
      <section aria-labelledby="errors">
        <h2 id="errors">Errors</h2>
        <p>
          Every error, on every endpoint, is this envelope with the status below.{" "}
          <code>retry_after</code> and <code>resets_at</code> come with the limits that lift.
        </p>
        <pre class="code"><code>{JSON.stringify({ error: example }, null, 2)}</code></pre>
        <div class="table-wrap">
          <table class="table errors">
            <thead>
              <tr>
                <th scope="col" class="num">Status</th>
                <th scope="col">Code</th>
                <th scope="col">Type</th>
                <th scope="col">When</th>
              </tr>
            </thead>
            <tbody>
              {(Object.keys(ERRORS) as ErrorCode[]).sort((a, b) =>
                ERRORS[a].status - ERRORS[b].status
              ).map((code) => (
                <tr key={code} id={`error-${code}`}>
                  <td class="num">{ERRORS[code].status}</td>
                  <td>
                    <code>{code}</code>
                  </td>
                  <td>
                    <code>{ERRORS[code].type}</code>
                  </td>
                  <td>{WHEN[code]}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </article>
  );
}
